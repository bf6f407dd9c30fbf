"""pytest configuration for running the chapters with nbval (``pytest --nbval-lax book/NAME.ipynb``).

The kernels that nbval starts inherit this process's environment. Progress bars (tqdm, on
stderr) are switched off there, as in the book's build, so that no bar, with its changing
timings, lands in the output of a cell whose printed numbers nbval compares: the command that
the page "Run the book yourself" gives passes as written. A value already set wins, so
``SVMTRUST_PROGRESS=1 pytest --nbval-lax book/NAME.ipynb`` shows the bars again.
"""

import os

os.environ.setdefault("SVMTRUST_PROGRESS", "0")
