/* synth: being written */
