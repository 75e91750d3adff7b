/* ring: being written */
