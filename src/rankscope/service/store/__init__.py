"""Where tasks and their per-query results are kept: the schema, its migrations and the
single writer of a running task (`sqlite`)."""
