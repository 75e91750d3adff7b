/* plugin: being written */
