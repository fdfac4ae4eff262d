"""What a task reads and calls: datasets (`datasets`, read through `rankscope.io`), retrievers
(`retrievers`, `bm25`, `http`), generators (`generators`), and what a server admits (`policy`)."""
