/* engine: being written */
