/* cli: being written */
