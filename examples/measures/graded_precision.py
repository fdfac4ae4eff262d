"""A measure of one's own: graded precision, the grades of the first k documents over the best
grade times k. For the command line's ``--measures-from`` (``rankscope evaluate QRELS RUN
--measures-from examples/measures/graded_precision.py -m GradedP@10``), or to import."""

from rankscope.measures import define


def graded_precision(ranked, judged, *, k, rel, top):
    """Graded precision: the grades of the first k documents over top * k.

    Documents graded below rel count 0 (unjudged ones are graded -1); top is the best grade
    of the scale (3 by default). With top=1 and grades 0/1 it is P@k.
    """
    grades = ranked[:k]
    return float(grades[grades >= rel].sum()) / (top * k)


define("GradedP", graded_precision, params={"top": 3}, cutoff="required", bounded=True)
