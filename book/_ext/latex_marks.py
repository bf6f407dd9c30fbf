"""The marks the book's LaTeX source carries for the handout (``make pdf SOLUTIONS=0``).

One Sphinx LaTeX build writes the book's ``.tex`` (``book/_ext/book_pdf.py``); the handout's is
cut from it by ``tools/handout_tex.py`` instead of a second Sphinx build. In the book's source:

- every solution of an exercise stands between a line :data:`SOLUTION_BEGIN` and a line
  :data:`SOLUTION_END` (LaTeX comments, so the book's PDF is unchanged): the handout leaves out
  what lies between them, marks included;
- the title page holds the handout's line (:data:`HANDOUT_TITLE`) commented out behind
  :data:`HANDOUT_TITLE_MARK`: the handout's title page uncomments it.

This module imports nothing, so that the tool reads the same marks without loading Sphinx.
"""

#: The line of LaTeX that opens a solution in the book's source.
SOLUTION_BEGIN = "%% svmtrust: a solution begins (the handout leaves it out)"
#: The line of LaTeX that closes a solution in the book's source.
SOLUTION_END = "%% svmtrust: the solution ends"
#: What the handout's title page says under the title.
HANDOUT_TITLE = r"\vspace{1cm}{\large\itshape Handout: the exercises without their solutions\par}"
#: The comment that keeps :data:`HANDOUT_TITLE` out of the book's title page.
HANDOUT_TITLE_MARK = "%% svmtrust: the handout's title: "
#: The suffix of the handout's file names: ``trusting-svm-handout.tex`` and ``.pdf``.
HANDOUT_SUFFIX = "-handout"
