"""An entry point for scripts written against ExecuTorch's Python Inspector.

    >>> from etprof import Inspector
    >>> inspector = Inspector(etdump_path="model.etdp")
    >>> df = inspector.to_dataframe()
    >>> inspector.print_data_tabular()

The table (runs with the same event structure merged into event blocks, one row per event
signature, per-run samples) is computed by libetprof (etprof_inspector.h); this module only shapes
it like the Inspector's. It follows the Inspector's documented behaviour, with these differences
(docs/python.md, "Inspector-compatible entry point"):

* every row keeps its own unit: time rows are in ``target_time_scale``; delegate values the
  file gives in cycles, bytes or counts keep that unit and are never divided as if they were
  ns. When every perf row is time, the columns are exactly the Inspector's; otherwise rows in
  another unit have their statistics in separate columns named with the unit (``p50 (cycles)``)
  and NaN in the time columns. The ``unit`` column (added last) names each row's unit;
* a start > end is a 32-bit counter wrap only where etprof decides so (exact arithmetic), else
  the sample is NaN; allocation events are left out instead of raising;
* ``delegate_backend_name`` comes from the program (``pte=``) rather than from an ETRecord;
* ``etrecord=`` fills op types, stack traces and module hierarchy through etprof's ETRecord
  reader (instruction -> debug handles -> nodes; delegated events through the delegate map,
  matched by exact id, not the Inspector's substring rule); keys are the FX node names without
  the trailing ``_`` the Inspector adds;
* ``debug_data`` (with ``debug_buffer_path``) holds tensors as ``numpy.ndarray`` (not torch
  tensors), read through the file's strides; without a debug buffer it is empty (the Inspector
  fills zeros). Later runs' values are not asserted equal to the first run's (the Inspector
  raises AssertionError): ``etprof.open(...).tensors()`` and ``etprof.compare`` show them;
* ``delegate_time_scale_converter`` gets the raw start and end ticks of delegated samples; a
  sample whose converted start is after its converted end is NaN (no wrap is guessed).
"""
from __future__ import annotations

import io as _io

from . import _etprof
from ._etprof import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # the annotations' names; nothing imported at run time
    import os
    from typing import IO, Any, Callable, Union

    import pandas

    PathArg = Union[str, "os.PathLike[str]"]

__all__ = ["Inspector", "EventBlock", "Event", "PerfData", "TimeScale", "INSPECTOR_COLUMNS"]

#: The columns of Inspector.to_dataframe(), in order (the Inspector's, then etprof's ``unit``).
INSPECTOR_COLUMNS = (
    "event_block_name",
    "event_name",
    "raw",
    "p10",
    "p50",
    "p90",
    "avg",
    "min",
    "max",
    "op_types",
    "delegate_debug_identifier",
    "stack_traces",
    "module_hierarchy",
    "is_delegated_op",
    "delegate_backend_name",
    "debug_data",
    "start_time",
    "unit",
)
_STATS = ("p10", "p50", "p90", "avg", "min", "max")
# what print_data_tabular() and save_data_to_tsv() leave out, as the Inspector does
_HIDDEN = ("raw", "delegate_debug_identifier", "stack_traces", "module_hierarchy", "debug_data")


class TimeScale:
    """The Inspector's time scales, as strings."""

    NS = "ns"
    US = "us"
    MS = "ms"
    S = "s"
    CYCLES = "cycles"


_HZ = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}


def _scale(v, what):
    if v is None:
        return None
    v = getattr(v, "value", v)  # the Inspector's TimeScale enum members carry the string
    v = str(v).lower()
    if v not in _HZ and v != "cycles":
        raise UsageError("%s: expected ns, us, ms, s or cycles, got %r" % (what, v))
    return v


class PerfData:
    """Per-run values of one event (``raw``, in the row's ``unit``) and their statistics."""

    __slots__ = ("raw", "unit", "p10", "p50", "p90", "avg", "min", "max")

    def __init__(self, raw, unit, stats):
        self.raw = raw
        self.unit = unit
        for k in _STATS:
            setattr(self, k, stats[k])

    def __repr__(self):
        return "<etprof PerfData: %d samples, p50 %g %s>" % (len(self.raw), self.p50, self.unit)


class Event:
    """One row of the table: an event signature of an event block."""

    __slots__ = ("name", "perf_data", "delegate_debug_identifier", "is_delegated_op",
                 "delegate_backend_name", "start_time", "instruction_id", "kind", "replaced",
                 "op_types", "stack_traces", "module_hierarchy", "debug_data", "_inspector",
                 "_row")

    def __repr__(self):
        return "<etprof Event %r>" % (self.name,)

    @property
    def raw_delegate_debug_metadatas(self):
        """Per run, the sample's delegate debug metadata (bytes, ``""`` when empty); None when
        every entry is empty or the event has no perf data."""
        return self._inspector._samples()["delegate_debug_metadata"][self._row]

    @property
    def delegate_debug_metadatas(self):
        """The ``delegate_metadata_parser``'s output for a delegated event with metadata, else
        :attr:`raw_delegate_debug_metadatas`."""
        return self._inspector._metadata(self._row)


class EventBlock:
    """Runs with the same name and event structure, merged (``runs`` of them)."""

    __slots__ = ("name", "events", "runs", "method", "bundled_input_index")

    def __repr__(self):
        return "<etprof EventBlock %r: %d events over %d runs>" % (self.name, len(self.events),
                                                                   self.runs)


def _inflate(v, np):
    """A debug entry from the binding as the Inspector's debug_data holds it: a tensor (the
    .npy bytes libetprof writes) as a numpy array, a tensor list as a list of them."""
    if isinstance(v, tuple):
        kind, b = v
        f = _io.BytesIO(b)
        if kind == "npy":
            return np.load(f, allow_pickle=False)
        np.lib.format.read_magic(f)  # logged without bytes (offset -1): no values, its dtype
        _, _, dtype = np.lib.format.read_array_header_1_0(f)
        return np.empty((0,), dtype=dtype)
    if isinstance(v, list):
        return [_inflate(x, np) for x in v]
    return v


def _op_types_cell(ops):
    """The Inspector's op_types cell: the list, or for 5 or more entries the first two and the
    last with the count, as one string."""
    if len(ops) >= 5:
        return "[%r, %r ... %r] (%d total)" % (ops[0], ops[1], ops[-1], len(ops))
    return list(ops)


class Inspector:
    """The Inspector's table of an ETDump, computed by libetprof.

    ``Inspector(etdump_path=None, etrecord=None, source_time_scale="ns",
    target_time_scale="ms", debug_buffer_path=None, ..., etdump_data=None, pte=None,
    method=None)``: exactly one of ``etdump_path`` / ``etdump_data`` (bytes). The time scales
    are the Inspector's (strings or its TimeScale members): the host clock's unit and the unit
    of the time columns; ``cycles`` must be given on both sides (then host times are ticks of
    unknown rate, shown as ``ticks``). ``pte`` (etprof's) names the backends of delegated rows
    and lets ``method`` be resolved. Errors are etprof's (:class:`etprof.InputError` with
    ``.file``, ``.offset``, ``.path``, ``.reason``, ...).

    ``debug_buffer_path`` (the debug buffer file): ``debug_data`` holds, per row, the event's
    entries logged in the first run of its block (the debug events with the same instruction
    and delegate ids), tensors as ``numpy.ndarray`` of the logged dtype and shape (needs numpy),
    ints, bools and floats as Python values, tensor lists as lists; a tensor outside the buffer
    raises :class:`etprof.InputError`. Later runs are not asserted equal to the first.

    ``delegate_time_scale_converter(event_name, time)``: applied to the raw start and end ticks
    of every sample of delegated rows; their values (``end - start`` converted) are then in
    ``target_time_scale`` (a converted start after the converted end gives NaN).
    ``delegate_metadata_parser(list)``: applied to a delegated row's per-sample metadata (bytes,
    ``""`` when empty) when it has any, for ``include_delegate_debug_data=True``.
    """

    def __init__(self, etdump_path: PathArg | None = None, etrecord: PathArg | None = None,
                 source_time_scale: str | TimeScale = "ns",
                 target_time_scale: str | TimeScale = "ms",
                 debug_buffer_path: PathArg | None = None,
                 delegate_metadata_parser: Callable[[bytes], Any] | None = None,
                 delegate_time_scale_converter: Callable[..., Any] | None = None,
                 enable_module_hierarchy: bool = False, *, etdump_data: bytes | None = None,
                 pte: PathArg | bytes | None = None, method: str | None = None) -> None:
        if (etdump_path is None) == (etdump_data is None):
            raise ValueError("Inspector: give exactly one of etdump_path and etdump_data")
        src = _scale(source_time_scale, "source_time_scale")
        dst = _scale(target_time_scale, "target_time_scale")
        if (src == "cycles") != (dst == "cycles"):
            raise RuntimeError("Inspector: cycles must be both the source and the target time "
                               "scale")
        if delegate_time_scale_converter is not None and not callable(
                delegate_time_scale_converter):
            raise UsageError("Inspector: delegate_time_scale_converter must be callable "
                             "(event_name, time) -> time")
        if delegate_metadata_parser is not None and not callable(delegate_metadata_parser):
            raise UsageError("Inspector: delegate_metadata_parser must be callable (list) -> "
                             "list or dict")
        self._converter = delegate_time_scale_converter
        self._metadata_parser = delegate_metadata_parser
        self._samples_cache = None
        self._parsed = {}
        self._enable_module_hierarchy = enable_module_hierarchy
        self._target = "ticks" if dst == "cycles" else dst
        kw = {"method": method}
        if src == "cycles":
            kw["ticks"] = True
        elif src != "ns":
            kw["tick_hz"] = _HZ[src]
        if debug_buffer_path is not None:
            kw["debug_buffer"] = debug_buffer_path
        self._p = _etprof.Profile(etdump_path if etdump_path is not None else etdump_data, pte,
                                  **kw)
        cols, meta = self._p.inspector_columns(
            time_unit=dst if dst in _HZ else "ns",
            etrecord=None if etrecord is None else __import__("os").fspath(etrecord))
        self._etrecord = etrecord
        if dst == "cycles":
            cols["unit"] = [u if u != "ns" else "ticks" for u in cols["unit"]]
        self._cols = cols
        self._meta = meta
        self._debug = None
        if debug_buffer_path is not None:
            from . import _numpy  # noqa: PLC0415 (the package imports this module)

            np = _numpy(True, "Inspector(debug_buffer_path=...)")
            raw = self._p.inspector_details(debug_data=True)["debug_data"]
            self._debug = [[_inflate(v, np) for v in row] for row in raw]
        if self._converter is not None:
            self._convert()
        self.event_blocks = self._blocks()

    # -- what it is -----------------------------------------------------------------------
    def __repr__(self):
        return "<etprof.Inspector of %r: %d event blocks, %d rows>" % (
            self._p.etdump, len(self.event_blocks), len(self._cols["event_name"]))

    def _repr_html_(self):
        import html  # noqa: PLC0415

        rows = "".join("<tr><td>%s</td><td>%d</td><td>%d</td></tr>" % (
            html.escape(str(b.name)), b.runs, len(b.events)) for b in self.event_blocks)
        return ("<p><b>etprof.Inspector</b> %s: %d rows (to_dataframe())</p><table><thead><tr>"
                "<th>event block</th><th>runs</th><th>events</th></tr></thead><tbody>%s</tbody>"
                "</table>" % (html.escape(str(self._p.etdump)), len(self._cols["event_name"]),
                              rows))

    def _samples(self):
        """Per row: the raw end ticks and the delegate debug metadata of every sample."""
        if self._samples_cache is None:
            self._samples_cache = self._p.inspector_details(samples=True)
        return self._samples_cache

    def _convert(self):
        """Delegated rows' samples through delegate_time_scale_converter: value = conv(name,
        end) - conv(name, start), in the target time scale; statistics by libetprof's."""
        c = self._cols
        ends = self._samples()["end_time"]
        conv = self._converter
        nan = float("nan")
        for i in range(len(c["event_name"])):
            if not c["is_delegated_op"][i] or c["raw"][i] is None:
                continue
            name = c["event_name"][i]
            raw = []
            for start, end in zip(c["start_time"][i], ends[i]):
                a, b = conv(name, start), conv(name, end)
                raw.append(float(b - a) if b >= a else nan)
            c["raw"][i] = raw
            c["unit"][i] = self._target
            for k, v in _etprof.stats(raw).items():
                c[k][i] = v

    def _metadata(self, i):
        """Row i's delegate_debug_metadatas: the parser's output for a delegated row with
        metadata (computed once), else the raw list (None when all are empty)."""
        raw = self._samples()["delegate_debug_metadata"][i]
        if raw is None or self._metadata_parser is None or not self._cols["is_delegated_op"][i]:
            return raw
        if i not in self._parsed:
            self._parsed[i] = self._metadata_parser(list(raw))
        return self._parsed[i]

    @property
    def runs(self) -> int:
        """Runs read (run_data blocks with events)."""
        return self._meta["runs"]

    @property
    def replaced_samples(self) -> int:
        """Samples the Inspector's rule drops: a signature occurring again in the same run
        keeps only its last sample (counted here, per row in the ``replaced`` attribute)."""
        return self._meta["replaced"]

    def _blocks(self):
        c = self._cols
        blocks = []
        cur = None
        for i in range(len(c["event_name"])):
            if cur is None or c["event_block"][i] != cur_index:
                cur_index = c["event_block"][i]
                cur = EventBlock()
                cur.name = c["event_block_name"][i]
                cur.runs = c["runs"][i]
                cur.method = c["method"][i]
                cur.bundled_input_index = -1
                cur.events = []
                blocks.append(cur)
            e = Event()
            e.name = c["event_name"][i]
            e.perf_data = None
            if c["raw"][i] is not None:
                e.perf_data = PerfData(c["raw"][i], c["unit"][i], {k: c[k][i] for k in _STATS})
            e.delegate_debug_identifier = c["delegate_debug_identifier"][i]
            e.is_delegated_op = c["is_delegated_op"][i]
            e.delegate_backend_name = c["delegate_backend_name"][i]
            e.start_time = c["start_time"][i]
            e.instruction_id = c["instruction_id"][i]
            e.kind = c["kind"][i]
            e.replaced = c["replaced"][i]
            e.op_types = c["op_types"][i]
            e.stack_traces = c["stack_traces"][i]
            e.module_hierarchy = c["module_hierarchy"][i]
            e.debug_data = self._debug[i] if self._debug is not None else []
            e._inspector = self
            e._row = i
            cur.events.append(e)
        return blocks

    # -- the table ------------------------------------------------------------------------
    def _columns(self, include_units, include_delegate_debug_data=False):
        c = self._cols
        n = len(c["event_name"])
        units = [u for u in c["unit"] if u is not None]
        others = sorted({u for u in units if u != self._target})
        out = {
            "event_block_name": list(c["event_block_name"]),
            "event_name": list(c["event_name"]),
            "raw": list(c["raw"]),
        }
        suffix = (" (%s)" % self._target) if include_units else ""
        nan = float("nan")
        for k in _STATS:
            col = []
            for i in range(n):
                v = c[k][i]
                col.append(v if c["unit"][i] == self._target else (None if v is None and
                                                                    c["unit"][i] is None else
                                                                    nan))
            out[k + suffix] = col
        for u in others:  # never two units in one column
            for k in _STATS:
                out["%s (%s)" % (k, u)] = [c[k][i] if c["unit"][i] == u else nan
                                           for i in range(n)]
        out["op_types"] = [_op_types_cell(x) for x in c["op_types"]]
        out["delegate_debug_identifier"] = list(c["delegate_debug_identifier"])
        out["stack_traces"] = list(c["stack_traces"])
        out["module_hierarchy"] = list(c["module_hierarchy"])
        out["is_delegated_op"] = list(c["is_delegated_op"])
        out["delegate_backend_name"] = list(c["delegate_backend_name"])
        out["debug_data"] = (list(self._debug) if self._debug is not None else
                             [[] for _ in range(n)])
        out["start_time"] = list(c["start_time"])
        out["unit"] = list(c["unit"])
        if include_delegate_debug_data:
            self._delegate_columns(out, n)
        return out

    def _delegate_columns(self, out, n):
        """The Inspector's delegate data columns, appended: one per key when the parser
        returned dicts (None in other rows), else ``delegate_debug_metadata``; rows whose value
        is not a dict keep it in ``delegate_debug_metadata``."""
        vals = [self._metadata(i) for i in range(n)]
        keys = []
        for v in vals:
            if isinstance(v, dict):
                keys.extend(k for k in v if k not in keys)
        if not keys or any(v is not None and not isinstance(v, dict) for v in vals):
            out["delegate_debug_metadata"] = [None if isinstance(v, dict) else v for v in vals]
        for k in keys:
            out[k] = [v.get(k) if isinstance(v, dict) else None for v in vals]

    def to_dataframe(self, include_units: bool = True,
                     include_delegate_debug_data: bool = False) -> pandas.DataFrame:
        """The table as a pandas DataFrame (a dict of column lists without pandas): the
        Inspector's columns (:data:`INSPECTOR_COLUMNS`), statistics suffixed with
        ``" (<target unit>)"`` when ``include_units``, extra statistic columns per other unit
        when rows are not all time, and ``unit``. Rows: block order, then first appearance.
        ``include_delegate_debug_data``: the delegate debug metadata appended, as a
        ``delegate_debug_metadata`` column (per row the per-sample bytes, ``""`` when empty, or
        None when all are empty; or the ``delegate_metadata_parser``'s list), or one column per
        key when the parser returns a dict."""
        pd = _need_pandas()
        cols = self._columns(include_units, include_delegate_debug_data)
        df = pd.DataFrame(cols, columns=list(cols))
        df.attrs.update({"etdump": self._p.etdump, "pte": self._p.pte,
                         "time_unit": self._target})
        return df

    def _shown(self, include_units, include_delegate_debug_data=False):
        cols = self._columns(include_units, include_delegate_debug_data)
        keep = [i for i, name in enumerate(cols["event_name"]) if "OPERATOR_CALL" not in name]
        return {k: [v[i] for i in keep] for k, v in cols.items() if k not in _HIDDEN}

    def print_data_tabular(self, file: IO[str] | None = None, include_units: bool = True,
                           include_delegate_debug_data: bool = False) -> None:
        """Prints the table as the Inspector does: without ``raw``, the delegate identifier,
        stack traces, module hierarchy and debug data, and without rows whose name contains
        ``OPERATOR_CALL``; ``include_delegate_debug_data`` as in :meth:`to_dataframe`."""
        import sys  # noqa: PLC0415

        f = file if file is not None else sys.stdout
        cols = self._shown(include_units, include_delegate_debug_data)
        pd = _pandas()
        if pd is not None:
            with pd.option_context("display.max_rows", None, "display.max_columns", None,
                                   "display.width", 0):
                print(pd.DataFrame(cols, columns=list(cols)).to_string(), file=f)
            return
        keys = list(cols)
        print("\t".join(keys), file=f)
        for i in range(len(cols["event_name"])):
            print("\t".join("" if cols[k][i] is None else str(cols[k][i]) for k in keys), file=f)

    def save_data_to_tsv(self, file: PathArg | IO[str], include_units: bool = True,
                         include_delegate_debug_data: bool = False) -> None:
        """Writes the printed table (see print_data_tabular) as TSV with the row index, as the
        Inspector does. ``file`` is a path or a text file object. Needs pandas.
        ``include_delegate_debug_data`` as in :meth:`to_dataframe`."""
        pd = _pandas()
        if pd is None:
            raise UsageError("Inspector.save_data_to_tsv needs pandas (Debian python3-pandas)")
        cols = self._shown(include_units, include_delegate_debug_data)
        pd.DataFrame(cols, columns=list(cols)).to_csv(file, sep="\t")

    def find_total_for_module(self, module_name: str) -> float:
        """The time of ``nn.Module`` ``module_name`` (its path, such as ``"enc.conv"``) per
        run, in ``target_time_scale``: its inclusive time from ``etprof modules``
        (``Profile.modules()``, the library's ``etp_modules_compute``) divided by the method's
        runs, summed over the methods that have it. Needs ``etrecord=``.

        It differs from the Inspector's on purpose: the Inspector adds up the average of every
        event whose debug handle belongs to the module, the DELEGATE_CALL and the backend's own
        events inside it alike (the same time counted twice, and cycles added to time when a
        backend logs both); here each profiling row adds only its exclusive part, so a module's
        time is never more than Method::execute, and cycles (QNN HTP nodes, the
        ``htp_cycles`` domain) are left out. An unknown module raises :class:`UsageError`."""
        if self._etrecord is None:
            raise UsageError("Inspector.find_total_for_module(%r): give etrecord= (the module "
                             "hierarchy comes from the program's ETRecord)" % (module_name,))
        tu = self._target if self._target in _HZ else "ns"
        cols, _ = self._p.modules_columns(time_unit=tu, module=str(module_name),
                                          etrecord=__import__("os").fspath(self._etrecord))
        total = 0.0
        for i, name in enumerate(cols["module"]):
            if (name == module_name and cols["domain"][i] == "time" and
                    not cols["no_module"][i] and cols["runs"][i]):
                total += cols["inclusive"][i] / cols["runs"][i]
        return total

    def get_op_list(self, event_block: Any = None, show_delegated_ops: bool = True) -> dict:
        """A stub in the Inspector (returns {}); here too."""
        return {}


def _need_pandas():
    try:
        import pandas  # noqa: PLC0415
    except ImportError as e:
        raise ImportError("etprof: Inspector.to_dataframe() returns a pandas DataFrame, and pandas "
                          "does not import (Debian: apt-get install python3-pandas)") from e
    return pandas


def _pandas():
    try:
        import pandas  # noqa: PLC0415
    except ImportError:
        return None
    return pandas
