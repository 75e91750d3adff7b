/* features: being written */
