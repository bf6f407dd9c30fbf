"""Bad input to svmtrust.datasets and svmtrust.keel: names, sizes, subsets, tables, labels."""

import inspect

import numpy as np
import pandas as pd
from svmtrust import datasets, keel

D = "svmtrust.datasets"
K = "svmtrust.keel"
TABLE = pd.DataFrame({0: [1.0, 2.0], 1: ["a", "b"], 2: ["p", "n"]})

#: Public names with no argument a caller could get wrong: the records, and the loaders whose
#: signature is empty (``load(name, **kwargs)`` refuses arguments they do not take), read from
#: the module so that a new loader cannot be forgotten here.
NO_INPUT = {
    f"{D}.Provenance": "a record built by the loaders",
    f"{D}.Dataset": "a record built by the loaders",
    **{
        f"{D}.{name}": "takes no argument"
        for name in datasets.__all__
        if name.startswith("load_") and not inspect.signature(getattr(datasets, name)).parameters
    },
}

CASES = [
    (f"{D}.load", "name unknown", lambda: datasets.load("nope"), "name"),
    (f"{D}.load", "name a list", lambda: datasets.load(["votes"]), "name"),
    (f"{D}.load", "name None", lambda: datasets.load(None), "name"),
    (f"{D}.load", "argument the loader lacks", lambda: datasets.load("votes", size=3), "size"),
    (f"{D}.load", "subset of another set", lambda: datasets.load("glass", subset="x"), "subset"),
    (f"{D}.load", "shuttle subset unknown", lambda: datasets.load("shuttle", subset="x"), "subset"),
    (f"{D}.load", "usps size zero", lambda: datasets.load("usps_like", size=0), "size"),
    (f"{D}.load_usps_like", "size zero", lambda: datasets.load_usps_like(0), "size"),
    (f"{D}.load_usps_like", "size above 28", lambda: datasets.load_usps_like(29), "size"),
    (f"{D}.load_usps_like", "size a float", lambda: datasets.load_usps_like(16.0), "size"),
    (f"{D}.load_usps_like", "size a bool", lambda: datasets.load_usps_like(True), "size"),
    (f"{D}.load_usps_like", "size a string", lambda: datasets.load_usps_like("16"), "size"),
    (f"{D}.load_usps_like", "size None", lambda: datasets.load_usps_like(None), "size"),
    (
        f"{D}.load_keel_binary",
        "name not binary",
        lambda: datasets.load_keel_binary("glass"),
        "name",
    ),
    (f"{D}.load_keel_binary", "name in capitals", lambda: datasets.load_keel_binary("CRX"), "name"),
    (f"{D}.load_keel_binary", "name None", lambda: datasets.load_keel_binary(None), "name"),
    (f"{D}.load_shuttle", "subset unknown", lambda: datasets.load_shuttle("shuttle"), "subset"),
    (f"{D}.load_shuttle", "subset None", lambda: datasets.load_shuttle(None), "subset"),
    (
        f"{D}.satimage_train_test",
        "another data set",
        lambda: datasets.satimage_train_test(datasets.load("haberman")),
        "dataset",
    ),
    (
        f"{D}.satimage_train_test",
        "a tuple of arrays",
        lambda: datasets.satimage_train_test((np.ones((6435, 2)), np.ones(6435))),
        "dataset",
    ),
    (f"{D}.satimage_train_test", "None", lambda: datasets.satimage_train_test(None), "dataset"),
    (f"{K}.read_table", "source unknown", lambda: keel.read_table("nope"), "source"),
    (
        f"{K}.read_table",
        "source in the other collection",
        lambda: keel.read_table("haberman"),
        "source",
    ),
    (f"{K}.read_table", "source None", lambda: keel.read_table(None), "source"),
    (f"{K}.read_table", "collection unknown", lambda: keel.read_table("crx", "all"), "collection"),
    (f"{K}.read_table", "collection None", lambda: keel.read_table("crx", None), "collection"),
    (f"{K}.load_table", "source unknown", lambda: keel.load_table("nope"), "source"),
    (f"{K}.load_table", "collection unknown", lambda: keel.load_table("crx", "all"), "collection"),
    (f"{K}.drop_missing", "frame an array", lambda: keel.drop_missing(np.ones((2, 3))), "frame"),
    (f"{K}.drop_missing", "frame empty", lambda: keel.drop_missing(TABLE.iloc[:0]), "frame"),
    (
        f"{K}.drop_missing",
        "frame without label column",
        lambda: keel.drop_missing(TABLE[[0]]),
        "frame",
    ),
    (f"{K}.one_hot", "features a list", lambda: keel.one_hot([[1.0, 2.0]]), "features"),
    (f"{K}.one_hot", "features empty", lambda: keel.one_hot(TABLE.iloc[:0, :2]), "features"),
    (
        f"{K}.one_hot",
        "features with a missing value",
        lambda: keel.one_hot(pd.DataFrame({0: [1.0, np.nan], 1: ["a", "b"]})),
        "features",
    ),
    (f"{K}.plus_minus", "positive absent", lambda: keel.plus_minus(["a", "b"], "c"), "positive"),
    (f"{K}.plus_minus", "positive None", lambda: keel.plus_minus(["a", "b"], None), "positive"),
    (f"{K}.plus_minus", "labels 2-D", lambda: keel.plus_minus([["a", "b"]], "a"), "labels"),
    (f"{K}.plus_minus", "labels empty", lambda: keel.plus_minus([], "a"), "labels"),
]
