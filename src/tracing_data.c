/* tracing_data: being written */
