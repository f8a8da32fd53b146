"""fastbg's own weights file: networks in GNU Backgammon's layout (race, crashed and
contact nets on its inputs) stored as a ``.npz``, each net's arrays under ``race/``,
``crashed/`` and ``contact/`` beside its input function's name, with the version and a
JSON ``meta`` of its provenance. :func:`fastbg.evaluators.nets.load_weights` reads it
beside GNU Backgammon's formats; :mod:`fastbg.training.weights` writes it.
"""
import io
import json
import zipfile

import numpy as np

# The nets and their input functions, as GNU Backgammon lays them out (the contact net on
# its contact250 inputs, the crashed net on std250, the race net on its 214).
KINDS = ("race", "crashed", "contact")
INPUTS = {"race": "race", "crashed": "std250", "contact": "contact250"}
FORMAT_TAG = "fastbg-nets"


def is_weights_file(data):
    """True when the bytes ``data`` are fastbg's weights file (a zip holding ``format.npy``)."""
    if not data.startswith(b"PK"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return "format.npy" in z.namelist()
    except zipfile.BadZipFile:
        return False


def read_weights(data, where):
    """(version, meta dict, {kind: (input function, w1, b1, w2, b2, beta)}) of fastbg's
    weights file ``data`` (bytes); ValueError naming ``where`` when it is not one. The
    pruning nets, where the file has them, come as kinds ``"prune race"``, ``"prune
    crashed"`` and ``"prune contact"`` (input function ``"base"``: the 200 base inputs)."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            if str(z["format"]) != FORMAT_TAG:
                raise ValueError(f"{where}: not a fastbg weights file")
            nets = {}
            names = set(z.files)
            kinds = KINDS + tuple(f"prune {k}" for k in KINDS
                                  if f"prune {k}/inputs" in names)
            for kind in kinds:
                inputs = str(z[f"{kind}/inputs"])
                if inputs:
                    nets[kind] = (inputs,) + tuple(
                        np.asarray(z[f"{kind}/{a}"], np.float32)
                        for a in ("w1", "b1", "w2", "b2", "beta"))
            return str(z["version"]), json.loads(str(z["meta"])), nets
    except (KeyError, zipfile.BadZipFile, OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{where}: not a fastbg weights file ({exc})") from exc
