"""Datasets for the evaluation service: questions with their text, judgements, and a corpus.

Three layouts are read, and checked before any retrieval starts:

* **WeKnora** (a directory): ``queries.parquet`` (id, text), ``corpus.parquet`` (id, text),
  ``qrels.parquet`` (qid, pid, score), and the reference answers, when there are any:
  ``answers.parquet`` (id, text) and ``qas.parquet`` (qid, aid). Id columns are integers in
  some files and strings in others; WeKnora reads them all as 64-bit integers, so when every
  id of a kind (query or document) is an integer they are compared as integers (``"01"`` and
  ``1`` are the same id).
* **BEIR** (a directory): ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl``
  (``_id``, ``text``, and a reference answer under ``answer``, or a list under ``answers``,
  when there is one) and ``qrels/<split>.tsv`` (header ``query-id corpus-id score``).
* **Files**: queries (JSONL as in BEIR, TSV ``id<TAB>text`` or Parquet with an optional
  ``answer`` column) and a qrels file (TREC, BEIR TSV, JSONL or Parquet), and optionally a
  corpus (JSONL or Parquet).

Only judged queries are evaluated, in the order of the queries file; queries without
judgements are counted in `Dataset.unjudged_queries` and left out (a BEIR ``queries.jsonl``
holds the queries of every split).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from rankscope.errors import DuplicateDocumentError, EmptyInputError, InputError, ParseError
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, Qrels
from rankscope.service.sources.files import (
    checked_path,
    confined,
    is_directory,
    regular_file,
    text_lines,
    within_roots,
)

__all__ = ["Dataset", "load_dataset"]

_INTEGER = re.compile(r"^[+-]?\d+$")
_SHOWN = 5


def _listing(values: Sequence[str]) -> str:
    shown = ", ".join(repr(v) for v in values[:_SHOWN])
    return shown + (f" and {len(values) - _SHOWN} more" if len(values) > _SHOWN else "")


@dataclass(frozen=True, eq=False)
class Dataset:
    """Judged questions with their text, and the corpus they are answered from.

    Attributes
    ----------
    name
        A short name (the directory's name for a directory).
    queries
        ``(query_id, text)`` of every judged query, in the order of the queries file.
    qrels
        The judgements of those queries.
    layout
        ``"weknora"``, ``"beir"``, ``"files"`` or ``"memory"``.
    location
        Where it was read from (``path`` and ``split``, or ``queries``, ``qrels``, ``corpus``),
        so that it can be read again; empty for a dataset built in memory.
    unjudged_queries
        Queries of the queries file without judgements, left out.
    references
        ``{query_id: (reference answer, ...)}`` of the judged queries that have one (the
        answers a generator's answers are scored against); empty when the dataset has none.

    Examples
    --------
    >>> data = Dataset.from_records(
    ...     {"q1": "what is bm25", "q2": "unjudged"}, {"q1": {"d1": 1}}, corpus={"d1": "BM25 is"}
    ... )
    >>> data.queries, data.unjudged_queries, data.corpus()
    ((('q1', 'what is bm25'),), 1, [('d1', 'BM25 is')])
    """

    name: str
    queries: tuple[tuple[str, str], ...]
    qrels: Qrels
    layout: str
    location: Mapping[str, str] = field(default_factory=dict)
    unjudged_queries: int = 0
    references: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    _corpus_loader: Callable[[], list[tuple[str, str]]] | None = field(default=None, repr=False)
    _corpus_cache: list[list[tuple[str, str]]] = field(default_factory=list, repr=False)

    @classmethod
    def from_records(
        cls,
        queries: Mapping[Any, str],
        qrels: Qrels | Mapping[Any, Mapping[Any, Any]],
        *,
        corpus: Mapping[Any, str] | None = None,
        references: Mapping[Any, str | Sequence[str]] | None = None,
        name: str = "dataset",
    ) -> Dataset:
        """A dataset from ``{query_id: text}``, qrels and optionally ``{doc_id: text}`` and
        reference answers ``{query_id: text or [texts]}``."""
        pairs = [(str(query_id), text) for query_id, text in queries.items()]
        judgements = qrels if isinstance(qrels, Qrels) else Qrels.from_dict(qrels)
        corpus_pairs = None if corpus is None else [(str(d), t) for d, t in corpus.items()]
        loader = None if corpus_pairs is None else (lambda: corpus_pairs)
        answers: dict[str, list[str]] = {}
        for query_id, given in (references or {}).items():
            texts = [given] if isinstance(given, str) else list(given)
            answers[str(query_id)] = _reference_texts(texts, f"query {query_id!r}", "<references>")
        return _assemble(
            name, "memory", {}, pairs, judgements, "<queries>", loader, references=answers
        )

    @property
    def has_corpus(self) -> bool:
        """Whether the dataset has a corpus (the BM25 baseline needs one)."""
        return self._corpus_loader is not None

    def corpus(self) -> list[tuple[str, str]]:
        """``(doc_id, text)`` of every passage, read (once) and checked on first use.

        Raises
        ------
        InputError
            If there is no corpus, a document id appears twice, or a judged document is not
            in the corpus.
        """
        if self._corpus_loader is None:
            raise InputError(f"dataset {self.name!r} has no corpus")
        if not self._corpus_cache:
            documents = self._corpus_loader()
            _check_corpus(documents, self.qrels, self.name)
            self._corpus_cache.append(documents)
        return self._corpus_cache[0]

    def fingerprint(self) -> str:
        """A SHA-256 of the queries and judgements: equal datasets give equal fingerprints."""
        digest = hashlib.sha256()
        for query_id, text in self.queries:
            digest.update(f"q\t{query_id}\t{text}\n".encode())
        for query_id, doc_id, grade in self.qrels.frame.sort([QUERY_ID, DOC_ID]).iter_rows():
            digest.update(f"j\t{query_id}\t{doc_id}\t{grade}\n".encode())
        return digest.hexdigest()

    def judgements_by_query(self) -> dict[str, list[tuple[str, int]]]:
        """``{query_id: [(doc_id, grade), ...]}`` in the order of the qrels."""
        result: dict[str, list[tuple[str, int]]] = {}
        for query_id, doc_id, grade in self.qrels.frame.iter_rows():
            result.setdefault(query_id, []).append((doc_id, grade))
        return result

    def describe(self) -> dict[str, Any]:
        """What the service stores about the dataset."""
        return {
            "name": self.name,
            "layout": self.layout,
            "location": dict(self.location),
            "queries": len(self.queries),
            "judgements": len(self.qrels),
            "unjudged_queries": self.unjudged_queries,
            "references": len(self.references),
            "fingerprint": self.fingerprint(),
        }


def load_dataset(
    path: str | Path | None = None,
    *,
    split: str | None = None,
    queries: str | Path | None = None,
    qrels: str | Path | None = None,
    corpus: str | Path | None = None,
    name: str | None = None,
    data_roots: Sequence[str | Path] | None = None,
) -> Dataset:
    """Read and check a dataset: a WeKnora or BEIR directory, or a queries and a qrels file.

    Parameters
    ----------
    path
        A WeKnora directory (``queries.parquet``, ``qrels.parquet``, ``corpus.parquet``) or a
        BEIR directory (``queries.jsonl``, ``corpus.jsonl``, ``qrels/<split>.tsv``).
    split
        The BEIR split (default ``test``, or the only split there is).
    queries, qrels, corpus
        Files, instead of ``path``: queries as JSONL (``_id`` or ``id``, ``text``), TSV or
        Parquet; qrels as TREC, BEIR TSV, JSONL or Parquet; an optional corpus as JSONL or
        Parquet.
    name
        A name for the dataset (default: the directory's or the queries file's name).
    data_roots
        Directories every file read must lie in, symbolic links resolved (a server's
        ``--data-root``); None reads anywhere.

    Raises
    ------
    InputError
        Missing files, unreadable lines (file:line), duplicate ids, empty query texts, judged
        queries without text, or no judged query at all; a path outside ``data_roots``.
    """
    with within_roots(data_roots) if data_roots is not None else nullcontext():
        return _load(path, split, queries, qrels, corpus, name)


def _load(
    path: str | Path | None,
    split: str | None,
    queries: str | Path | None,
    qrels: str | Path | None,
    corpus: str | Path | None,
    name: str | None,
) -> Dataset:
    if path is not None:
        if queries is not None or qrels is not None:
            raise InputError("give either a dataset directory or queries and qrels files, not both")
        kind = is_directory(path)
        if not kind:
            raise InputError(
                "expected a dataset directory (WeKnora or BEIR layout); "
                + ("it does not exist" if kind is None else "found a file"),
                source=str(path),
            )
        directory = checked_path(path)
        default_name = Path(path).name or directory.name
        if _present(directory / "queries.parquet") or _present(directory / "qrels.parquet"):
            return _load_weknora(directory, name or default_name)
        if _present(directory / "queries.jsonl") or is_directory(directory / "qrels"):
            return _load_beir(directory, split, name or default_name)
        raise InputError(
            "expected a WeKnora dataset (queries.parquet, qrels.parquet, corpus.parquet) or a "
            "BEIR dataset (queries.jsonl, corpus.jsonl, qrels/<split>.tsv) in this directory",
            source=str(directory),
        )
    if queries is None or qrels is None:
        raise InputError("a dataset needs a directory, or both a queries file and a qrels file")
    return _load_files(Path(queries), Path(qrels), None if corpus is None else Path(corpus), name)


def _present(path: Path) -> bool:
    """Whether something is at ``path`` (which must lie inside the data roots)."""
    return is_directory(path) is not None


# --- assembling and checking ---------------------------------------------------------------


def _assemble(
    name: str,
    layout: str,
    location: Mapping[str, str],
    pairs: Sequence[tuple[str, str]],
    qrels: Qrels,
    queries_source: str,
    corpus_loader: Callable[[], list[tuple[str, str]]] | None,
    lines: Sequence[int] | None = None,
    references: Mapping[str, list[str]] | None = None,
) -> Dataset:
    seen: dict[str, int] = {}
    for index, (query_id, text) in enumerate(pairs):
        where = lines[index] if lines is not None else None
        if not query_id:
            raise InputError("a query has an empty id", source=queries_source, line=where)
        if query_id in seen:
            first = seen[query_id]
            previous = f"line {lines[first]}" if lines is not None else f"row {first + 1}"
            raise InputError(
                f"query id {query_id!r} appears twice (first at {previous}); ids must be unique",
                source=queries_source,
                line=where if lines is not None else None,
            )
        seen[query_id] = index
        if not isinstance(text, str) or not text.strip():
            raise InputError(
                f"query {query_id!r} has no text; expected a non-empty string, found {text!r}",
                source=queries_source,
                line=where,
            )
    frame = qrels.frame
    if frame.select(pl.struct(QUERY_ID, DOC_ID).is_duplicated().any()).item():
        dup = frame.filter(pl.struct(QUERY_ID, DOC_ID).is_duplicated()).row(0, named=True)
        raise DuplicateDocumentError(
            f"document {dup[DOC_ID]!r} is judged twice for query {dup[QUERY_ID]!r}",
            source=qrels.source,
        )
    judged = frame[QUERY_ID].unique(maintain_order=True).to_list()
    without_text = [query_id for query_id in judged if query_id not in seen]
    if without_text:
        raise InputError(
            f"{len(without_text)} judged queries have no text in {queries_source}: "
            f"{_listing(without_text)}; every judged query needs its question",
            source=qrels.source,
        )
    judged_set = set(judged)
    kept = tuple((query_id, text) for query_id, text in pairs if query_id in judged_set)
    return Dataset(
        name=name,
        queries=kept,
        qrels=qrels,
        layout=layout,
        location=dict(location),
        unjudged_queries=len(pairs) - len(kept),
        references={
            query_id: tuple(texts)
            for query_id, texts in (references or {}).items()
            if query_id in judged_set
        },
        _corpus_loader=corpus_loader,
    )


def _reference_texts(
    texts: Sequence[Any], where: str, source: str, line: int | None = None
) -> list[str]:
    """Reference answers, checked to be texts."""
    if not texts or not all(isinstance(text, str) for text in texts):
        raise InputError(
            f"the reference answer of {where} must be a text or a list of texts; "
            f"found {texts!r:.80}",
            source=source,
            line=line,
        )
    return list(texts)


def _check_corpus(documents: Sequence[tuple[str, str]], qrels: Qrels, name: str) -> None:
    if not documents:
        raise EmptyInputError(f"the corpus of dataset {name!r} holds no documents")
    seen: set[str] = set()
    for doc_id, _text in documents:
        if doc_id in seen:
            raise InputError(
                f"document id {doc_id!r} appears twice in the corpus of dataset {name!r}"
            )
        seen.add(doc_id)
    judged = qrels.frame[DOC_ID].unique(maintain_order=True).to_list()
    missing = [doc_id for doc_id in judged if doc_id not in seen]
    if missing:
        raise InputError(
            f"{len(missing)} judged documents are not in the corpus of dataset {name!r}: "
            f"{_listing(missing)}",
            source=qrels.source,
        )


def _canonical_integers(*groups: list[str]) -> list[list[str]]:
    """Ids as WeKnora compares them: as integers, when every one of them is an integer."""
    if all(_INTEGER.match(value) for group in groups for value in group):
        return [[str(int(value)) for value in group] for group in groups]
    return [list(group) for group in groups]


# --- WeKnora ------------------------------------------------------------------------------


def _read_parquet_columns(
    path: Path, wanted: Mapping[str, Sequence[str]]
) -> tuple[pl.DataFrame, dict[str, str]]:
    """The frame and, for each of our names, the file's column that holds it."""
    if not _present(path):
        raise InputError(f"missing file {path.name}", source=str(path.parent))
    try:
        frame = pl.read_parquet(regular_file(path))
    except Exception as error:  # polars raises several kinds for a corrupt file
        raise ParseError(f"cannot read as Parquet: {error}", source=str(path)) from error
    chosen: dict[str, str] = {}
    for ours, accepted in wanted.items():
        match = next((c for c in accepted if c in frame.columns), None)
        if match is None:
            raise InputError(
                f"expected a column {' or '.join(repr(c) for c in accepted)}; "
                f"found columns {frame.columns}",
                source=str(path),
            )
        chosen[ours] = match
    return frame, chosen


def _id_strings(frame: pl.DataFrame, column: str, source: str) -> list[str]:
    values = frame[column]
    if values.dtype.is_float():
        raise InputError(
            f"column {column!r} must hold integers or strings; found floats", source=source
        )
    values = values.cast(pl.String)
    if values.is_null().any():
        row = int(values.is_null().arg_max() or 0)
        raise InputError(f"column {column!r} is empty at row {row + 1}", source=source)
    return [value.strip() for value in values.to_list()]


def _texts(frame: pl.DataFrame, column: str) -> list[str]:
    return ["" if value is None else str(value) for value in frame[column].to_list()]


def _load_weknora(directory: Path, name: str) -> Dataset:
    queries_path = directory / "queries.parquet"
    qrels_path = directory / "qrels.parquet"
    corpus_path = directory / "corpus.parquet"
    query_frame, query_cols = _read_parquet_columns(
        queries_path, {"id": ("id", "qid"), "text": ("text", "query")}
    )
    if not _present(qrels_path):
        raise InputError(f"missing file {qrels_path.name}", source=str(directory))
    qrels_frame = _read_qrels_file(qrels_path).frame
    query_ids = _id_strings(query_frame, query_cols["id"], str(queries_path))
    qrels_query_ids = [value.strip() for value in qrels_frame[QUERY_ID].to_list()]
    qrels_doc_ids = [value.strip() for value in qrels_frame[DOC_ID].to_list()]
    corpus_ids: list[str] = []
    if _present(corpus_path):
        corpus_frame, corpus_cols = _read_parquet_columns(
            corpus_path, {"id": ("id", "pid"), "text": ("text", "passage")}
        )
        corpus_ids = _id_strings(corpus_frame, corpus_cols["id"], str(corpus_path))
        corpus_texts = _texts(corpus_frame, corpus_cols["text"])
    else:
        raise InputError("missing file corpus.parquet", source=str(directory))
    answer_question_ids, answer_texts = _weknora_answers(directory)
    query_ids, qrels_query_ids, answer_question_ids = _canonical_integers(
        query_ids, qrels_query_ids, answer_question_ids
    )
    corpus_ids, qrels_doc_ids = _canonical_integers(corpus_ids, qrels_doc_ids)
    references: dict[str, list[str]] = {}
    for question, text in zip(answer_question_ids, answer_texts, strict=True):
        references.setdefault(question, []).append(text)

    qrels = Qrels.from_frame(
        pl.DataFrame(
            {
                QUERY_ID: qrels_query_ids,
                DOC_ID: qrels_doc_ids,
                RELEVANCE: qrels_frame[RELEVANCE],
            },
            schema_overrides={QUERY_ID: pl.String, DOC_ID: pl.String},
        ),
        source=str(qrels_path),
    )
    documents = list(zip(corpus_ids, corpus_texts, strict=True))
    pairs = list(zip(query_ids, _texts(query_frame, query_cols["text"]), strict=True))
    return _assemble(
        name,
        "weknora",
        {"path": str(directory.resolve())},
        pairs,
        qrels,
        str(queries_path),
        lambda: documents,
        references=references,
    )


def _weknora_answers(directory: Path) -> tuple[list[str], list[str]]:
    """The question id and text of every reference answer: ``qas.parquet`` (qid, aid) maps
    questions to the answers of ``answers.parquet`` (id, text); none if neither file is there."""
    answers_path = directory / "answers.parquet"
    qas_path = directory / "qas.parquet"
    present = [_present(answers_path), _present(qas_path)]
    if not any(present):
        return [], []
    if not all(present):
        missing = "qas.parquet" if present[0] else "answers.parquet"
        raise InputError(
            f"missing file {missing}: WeKnora's reference answers need both answers.parquet "
            "and qas.parquet",
            source=str(directory),
        )
    answer_frame, answer_cols = _read_parquet_columns(
        answers_path, {"id": ("id", "aid"), "text": ("text", "answer")}
    )
    qas_frame, qas_cols = _read_parquet_columns(
        qas_path, {"qid": ("qid", "query_id"), "aid": ("aid", "answer_id")}
    )
    answer_ids = _id_strings(answer_frame, answer_cols["id"], str(answers_path))
    qas_answer_ids = _id_strings(qas_frame, qas_cols["aid"], str(qas_path))
    answer_ids, qas_answer_ids = _canonical_integers(answer_ids, qas_answer_ids)
    texts: dict[str, str] = {}
    for row, (answer_id, text) in enumerate(
        zip(answer_ids, _texts(answer_frame, answer_cols["text"]), strict=True), start=1
    ):
        if answer_id in texts:
            raise InputError(
                f"answer id {answer_id!r} appears twice (row {row}); ids must be unique",
                source=str(answers_path),
            )
        texts[answer_id] = text
    for row, answer_id in enumerate(qas_answer_ids, start=1):
        if answer_id not in texts:
            raise InputError(
                f"row {row}: answer id {answer_id!r} is not in answers.parquet",
                source=str(qas_path),
            )
    question_ids = _id_strings(qas_frame, qas_cols["qid"], str(qas_path))
    return question_ids, [texts[answer_id] for answer_id in qas_answer_ids]


# --- BEIR and files -------------------------------------------------------------------------


def _jsonl_records(path: Path) -> Iterator[tuple[int, dict[str, Any], str]]:
    """``(line number, object, line)`` of every non-blank line."""
    if not _present(path):
        raise InputError(f"missing file {path.name}", source=str(path.parent))
    for number, line in text_lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ParseError(
                f"expected a JSON object; {error.msg} at column {error.colno}",
                source=str(path),
                line=number,
                text=line,
            ) from None
        if not isinstance(record, dict):
            raise ParseError(
                f"expected a JSON object; found {type(record).__name__}",
                source=str(path),
                line=number,
                text=line,
            )
        yield number, record, line


def _record_id(
    record: Mapping[str, Any], keys: Sequence[str], path: Path, number: int, line: str
) -> str:
    for key in keys:
        if key in record:
            value = record[key]
            if isinstance(value, bool) or not isinstance(value, str | int) or str(value) == "":
                break
            return str(value).strip()
    raise ParseError(
        f"expected a non-empty string or integer id under {' or '.join(map(repr, keys))}",
        source=str(path),
        line=number,
        text=line.rstrip("\n"),
    )


def _read_queries_jsonl(path: Path) -> QueriesRead:
    pairs: list[tuple[str, str]] = []
    lines: list[int] = []
    references: dict[str, list[str]] = {}
    for number, record, line in _jsonl_records(path):
        query_id = _record_id(record, ("_id", "id", "query_id", "qid"), path, number, line)
        text = record.get("text", record.get("query"))
        pairs.append((query_id, text if isinstance(text, str) else ""))
        lines.append(number)
        answer = record.get("answer", record.get("answers"))
        if answer is not None:
            texts = answer if isinstance(answer, list) else [answer]
            references[query_id] = _reference_texts(texts, f"query {query_id!r}", str(path), number)
    return pairs, lines, references


QueriesRead = tuple[list[tuple[str, str]], list[int] | None, dict[str, list[str]]]
"""Question ids and texts, their line numbers (None in Parquet) and reference answers."""


def _read_queries_tsv(path: Path) -> QueriesRead:
    pairs: list[tuple[str, str]] = []
    lines: list[int] = []
    for number, line in text_lines(path):
        if not line.strip():
            continue
        parts = line.split("\t", 1)
        if len(parts) != 2:
            raise ParseError(
                "expected 'query_id<TAB>text'", source=str(path), line=number, text=line
            )
        pairs.append((parts[0].strip(), parts[1]))
        lines.append(number)
    return pairs, lines, {}


def _read_queries_file(path: Path) -> QueriesRead:
    regular_file(path, "queries file")
    if path.suffix == ".parquet":
        frame, cols = _read_parquet_columns(
            path, {"id": ("id", "_id", "qid", "query_id"), "text": ("text", "query")}
        )
        ids = _id_strings(frame, cols["id"], str(path))
        references: dict[str, list[str]] = {}
        if "answer" in frame.columns:
            for query_id, answer in zip(ids, frame["answer"].to_list(), strict=True):
                if answer is not None:
                    references[query_id] = _reference_texts(
                        [answer], f"query {query_id!r}", str(path)
                    )
        return list(zip(ids, _texts(frame, cols["text"]), strict=True)), None, references
    if path.suffix in (".tsv", ".txt"):
        return _read_queries_tsv(path)
    return _read_queries_jsonl(path)


def _read_corpus_file(path: Path) -> list[tuple[str, str]]:
    """``(doc_id, text)`` of a corpus file (JSONL, TSV, CSV or Parquet) read by
    `rankscope.io.read_corpus`, from a regular file under the data roots."""
    from rankscope.io import read_corpus

    return list(read_corpus(regular_file(path, "corpus file")).items())


def _read_qrels_file(path: Path) -> Qrels:
    """Judgements in any format `rankscope.io.read_qrels` reads (TREC, BEIR's TSV, JSONL,
    Parquet, compressed or not), from a regular file under the data roots."""
    from rankscope.io import read_qrels

    try:
        return read_qrels(regular_file(path, "qrels file"))
    except OverflowError as error:  # a grade like 10**400 that no number type holds
        raise ParseError(f"a relevance grade is out of range: {error}", source=str(path)) from None


def _load_beir(directory: Path, split: str | None, name: str) -> Dataset:
    queries_path = directory / "queries.jsonl"
    corpus_path = directory / "corpus.jsonl"
    qrels_dir = directory / "qrels"
    for required in (queries_path, corpus_path):
        if not _present(required):
            raise InputError(f"missing file {required.name} (BEIR layout)", source=str(directory))
    splits = sorted(p.stem for p in qrels_dir.glob("*.tsv")) if is_directory(qrels_dir) else []
    if not splits:
        raise InputError("missing qrels/<split>.tsv (BEIR layout)", source=str(directory))
    if split is None:
        split = "test" if "test" in splits or len(splits) != 1 else splits[0]
    if split not in splits:
        raise InputError(
            f"no qrels for split {split!r}; found splits {splits}", source=str(qrels_dir)
        )
    qrels_path = qrels_dir / f"{split}.tsv"
    pairs, lines, references = _read_queries_jsonl(queries_path)
    qrels = _read_qrels_file(qrels_path)
    return _assemble(
        name,
        "beir",
        {"path": str(directory.resolve()), "split": split},
        pairs,
        qrels,
        str(queries_path),
        confined(lambda: _read_corpus_file(corpus_path)),
        lines,
        references,
    )


def _load_files(queries: Path, qrels_path: Path, corpus: Path | None, name: str | None) -> Dataset:
    pairs, lines, references = _read_queries_file(queries)
    qrels = _read_qrels_file(qrels_path)
    if corpus is not None:
        regular_file(corpus, "corpus file")
    location = {"queries": str(queries.resolve()), "qrels": str(qrels_path.resolve())}
    loader = None
    if corpus is not None:
        location["corpus"] = str(corpus.resolve())
        corpus_file = corpus
        loader = confined(lambda: _read_corpus_file(corpus_file))
    return _assemble(
        name or queries.stem,
        "files",
        location,
        pairs,
        qrels,
        str(queries),
        loader,
        lines,
        references,
    )
