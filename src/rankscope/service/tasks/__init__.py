"""A task's life: submitting and claiming it (`service`), running its questions (`runner`),
scoring them (`scoring`), and what is read from it afterwards (`info`, `export`, `compare`)."""
