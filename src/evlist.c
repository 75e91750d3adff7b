/* evlist: being written */
