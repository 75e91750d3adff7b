/* sinkset: being written */
