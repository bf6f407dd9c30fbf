"""Bad input to svmtrust.progress."""

from svmtrust import progress

P = "svmtrust.progress."

CASES = [
    (P + "show_progress", "progress a string", lambda: progress.show_progress("False"), "progress"),
    (P + "show_progress", "progress None", lambda: progress.show_progress(None), "progress"),
    (P + "steps", "count negative", lambda: progress.steps(-1, "loop"), "count"),
    (P + "steps", "count a float", lambda: progress.steps(2.0, "loop"), "count"),
]
