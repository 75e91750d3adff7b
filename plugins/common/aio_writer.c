/* aio_writer: being written */
