/* opts: being written */
