/* pool: being written */
