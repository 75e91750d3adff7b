/* perf_file: being written */
