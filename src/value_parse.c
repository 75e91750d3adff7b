/* value_parse: being written */
