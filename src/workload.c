/* workload: being written */
