"""etprof: ExecuTorch ETDump (.etdp) profiles in Python, through libetprof.

    >>> import etprof
    >>> p = etprof.open("model.etdp", "model.pte")
    >>> df = p.ops()                 # one row per operator, like `etprof ops --format json`
    >>> p.summary()["methods"][0]["latency"]["p50"]

Results are computed by the C library (libetprof.so.0) from the memory-mapped file; only the
table you ask for becomes Python objects, whole columns at a time (NumPy arrays from the
library's typed tables). Tables are pandas DataFrames (pandas is imported by the first call that
makes one, not by `import etprof`; without it that call raises ImportError) or, with
``as_dict=True``, dicts of columns (lists). See docs/python.md.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # the annotations' names; nothing imported at run time
    from typing import Any, Iterator, Union

    import pandas

    PathArg = Union[str, "os.PathLike[str]"]
    Data = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
    Frame = Union["pandas.DataFrame", dict[str, list[Any]]]

class _Lazy:
    """A module imported on first use: `import etprof` stays cheap (json, html, filecmp and
    pandas are loaded only by the calls that need them)."""

    __slots__ = ("_name", "_mod")

    def __init__(self, name):
        self._name, self._mod = name, None

    def __getattr__(self, attr):
        if self._mod is None:
            import importlib  # noqa: PLC0415

            self._mod = importlib.import_module(self._name)
        return getattr(self._mod, attr)


filecmp = _Lazy("filecmp")
_html = _Lazy("html")
_io = _Lazy("io")
_json = _Lazy("json")

from . import _etprof  # noqa: E402
from ._etprof import Error, InputError, InternalError, IOError, UsageError
from .inspector import INSPECTOR_COLUMNS, Inspector, TimeScale

__all__ = [
    "open",
    "Profile",
    "Error",
    "InputError",
    "UsageError",
    "IOError",
    "InternalError",
    "OPS_COLUMNS",
    "WALL_EST_COLUMNS",
    "MODULE_COLUMNS",
    "check_outputs",
    "CheckOutputs",
    "Explain",
    "library_version",
    "EVENT_COLUMNS",
    "qnn",
    "Qnn",
    "qnn_viewer",
    "QnnViewer",
    "QNN_VIEWER_COLUMNS",
    "diff",
    "Diff",
    "Inspector",
    "INSPECTOR_COLUMNS",
    "TimeScale",
    "TENSOR_COLUMNS",
    "ETRECORD_COLUMNS",
    "compare",
    "Compare",
    "COMPARE_COLUMNS",
]

__version__ = _etprof.library_version()

#: The columns of Profile.ops(), in order: those of `etprof ops --format json` rows, then
#: `samples` (the per-run values, in the row's unit, in run order).
OPS_COLUMNS = (
    "method",
    "instruction_id",
    "name",
    "count",
    "min",
    "p10",
    "p50",
    "p90",
    "avg",
    "max",
    "total",
    "share",
    "unit",
    "placement",
    "kind",
    "operator",
    "bad_time_count",
    "wrapped_count",
    "event_name",
    "samples",
)


#: The columns ops() adds after ``operator`` when an HTP clock is known (``htp_clock_ghz=``, or
#: the Profile's runtrace / QHAS): the per-node wall-time estimate of ``etprof ops``.
WALL_EST_COLUMNS = ("wall_est_p50", "wall_est_total", "wall_est_unit")


#: The columns ops() adds when the Profile was opened with ``etrecord=``, before ``samples``:
#: those of `etprof ops --etrecord R --format json`.
ETRECORD_COLUMNS = ("op_types", "module", "module_class", "stack_trace", "stack_trace_full",
                    "debug_handles")


def library_version() -> str:
    """The version of libetprof the extension module was built against."""
    return _etprof.library_version()


def _pandas():
    try:
        import pandas  # noqa: PLC0415 (optional at import time)
    except ImportError:
        return None
    return pandas


def _need_pandas(what):
    """pandas, or an ImportError that says what needed it and how to do without."""
    try:
        import pandas  # noqa: PLC0415 (imported only when a DataFrame is asked for)
    except ImportError as e:
        raise ImportError("etprof: %s returns a pandas DataFrame, and pandas does not import "
                          "(Debian: apt-get install python3-pandas); pass as_dict=True for a "
                          "dict of columns (lists) instead" % what) from e
    return pandas


_ARRAY_CODES = {"i": "q", "u": "Q", "f": "d", "b": "q"}


def _col_list(kind, data, valid):
    """One column of the library's table converter as a list (None for null cells)."""
    if kind in ("s", "o"):
        return data
    if kind == "n":
        return [None] * (len(data) // 8)
    vals = memoryview(data).cast(_ARRAY_CODES[kind]).tolist()
    if kind == "b":
        vals = [bool(v) for v in vals]
    if valid is not None:
        vals = [v if ok else None for v, ok in zip(vals, valid)]
    return vals


def _col_array(pd, np, kind, data, valid, nullable):
    """One column as a NumPy array or pandas extension array, whole: int/uint columns that may
    hold nulls are pandas' nullable Int64/UInt64, floats NaN for null, text an object column."""
    if kind in ("s", "o"):
        return data
    if kind == "n":
        return pd.array([None] * (len(data) // 8), dtype="object")
    if kind == "f":
        return np.frombuffer(data, dtype=np.float64)
    mask = None if valid is None else np.frombuffer(valid, dtype=np.bool_) == 0
    if kind == "b":
        v = np.frombuffer(data, dtype=np.int64) != 0
        return v if mask is None else pd.arrays.BooleanArray(v, mask)
    v = np.frombuffer(data, dtype=np.int64 if kind == "i" else np.uint64)
    if mask is not None or nullable:
        return pd.arrays.IntegerArray(v, np.zeros(len(v), dtype=np.bool_) if mask is None
                                      else mask)
    if kind == "u" and (len(v) == 0 or int(v.max()) < (1 << 63)):
        return v.astype(np.int64)
    return v


def _frame(cols, *, as_dict=False, what="this table", attrs=None):
    """The library's columns (the extension's table converter: key, unit, kind, data, valid,
    nullable) as a DataFrame built from whole columns, with ``attrs`` (units per column and the
    file identity); with ``as_dict`` a dict of column name -> list."""
    if as_dict:
        return {k: _col_list(kind, data, valid) for k, _u, kind, data, valid, _n in cols}
    pd = _need_pandas(what)
    import numpy as np  # noqa: PLC0415 (pandas needs it)
    df = pd.DataFrame({k: _col_array(pd, np, kind, data, valid, nl)
                       for k, _u, kind, data, valid, nl in cols}, copy=False)
    a = dict(attrs or {})
    a.setdefault("units", {k: u for k, u, *_ in cols if u})
    df.attrs.update(a)
    return df


def _numpy(required=False, what=None):
    """numpy, or None when it does not import; with ``required`` an ImportError that says what
    needed it (Debian: apt-get install python3-numpy)."""
    try:
        import numpy  # noqa: PLC0415 (optional at import time)
    except ImportError as e:
        if required:
            raise ImportError("etprof: %s needs numpy (Debian: apt-get install python3-numpy)"
                              % what) from e
        return None
    return numpy


class Profile:
    """An ETDump, verified, with its program when one was given.

    Create it with :func:`etprof.open`. The files stay mapped while the Profile is open (results
    do not copy the dump); :meth:`close` (or a ``with`` block) releases them.
    """

    __slots__ = ("_p",)

    def __init__(self, etdump: Data, pte: Data | None = None, *, method: str | None = None,
                 skip_first: int = 0, block: str | None = None, tick_hz: float | None = None,
                 ignore_program_mismatch: bool = False, debug_buffer: Data | None = None,
                 etrecord: PathArg | None = None, qhas: PathArg | None = None,
                 optrace: PathArg | None = None, runtrace: PathArg | None = None,
                 heap: PathArg | None = None, tick_ns: float | None = None,
                 ticks: bool = False, runner_log: PathArg | None = None) -> None:
        self._p = _etprof.Profile(etdump, pte, method=method, skip_first=skip_first,
                                  block=block, tick_hz=tick_hz,
                                  ignore_program_mismatch=bool(ignore_program_mismatch),
                                  ticks=bool(ticks), debug_buffer=debug_buffer,
                                  etrecord=etrecord, qhas=qhas, optrace=optrace,
                                  runtrace=runtrace, heap=heap, tick_ns=tick_ns)
        if runner_log is not None:
            self._p.set_runner_log(runner_log)

    # -- what it is -----------------------------------------------------------------------
    @property
    def etdump(self) -> str:
        """The ETDump path as given ("<bytes>" for a dump given as bytes)."""
        return self._p.etdump

    @property
    def pte(self) -> str | None:
        """The program (.pte/.bpte) path as given, or None."""
        return self._p.pte

    @property
    def method(self) -> str | None:
        """The method forced with ``method=``, or None (resolved from the program)."""
        return self._p.method

    @property
    def qnn_files(self) -> dict[str, str | None]:
        """QNN's files given at open: a dict qhas/optrace/runtrace/heap -> path or None."""
        return self._p.qnn_files

    @property
    def etrecord(self) -> str | None:
        """The ETRecord path as given, or None."""
        return self._p.etrecord

    @property
    def debug_buffer(self) -> str | None:
        """The debug buffer path as given ("<debug_buffer>" for bytes), or None."""
        return self._p.debug_buffer

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._p.closed

    @property
    def busy(self) -> bool:
        """True while another thread runs a long library call on this Profile (opening,
        ops, trace/report writing, compare): the GIL is released during those, and every
        other use of the Profile meanwhile raises :class:`UsageError`."""
        return self._p.busy

    def __repr__(self):
        if self._p.busy:
            return "<etprof.Profile of %r (busy in another thread)>" % (self.etdump,)
        if self._p.closed:
            return "<etprof.Profile of %r (closed)>" % (self.etdump,)
        parts = ["%r" % (self.etdump,)]
        if self.pte is not None:
            parts.append("pte=%r" % (self.pte,))
        if self.method is not None:
            parts.append("method=%r" % (self.method,))
        if self.debug_buffer is not None:
            parts.append("debug_buffer=%r" % (self.debug_buffer,))
        if self.etrecord is not None:
            parts.append("etrecord=%r" % (self.etrecord,))
        for k, v in (self.qnn_files or {}).items():
            if v is not None:
                parts.append("%s=%r" % (k, v))
        return "<etprof.Profile of %s: %d blocks, %d events>" % (
            ", ".join(parts),
            self._p.blocks,
            self._p.events,
        )

    # -- life ---------------------------------------------------------------------------------
    def close(self) -> None:
        """Releases the mapped files and the results; later calls raise ValueError."""
        self._p.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # -- analyses -----------------------------------------------------------------------------
    def ops(self, *, time_unit: str = "us", all: bool = False, kind: str | None = None,
            placement: str | None = None, sort: str | None = None, top: int = 0,
            as_dict: bool = False, samples: str = "auto", htp_clock_ghz: float | None = None) -> Frame:
        """Per-operator statistics over the runs: one row per (method, instruction, identity).

        The rows, columns and units are those of ``etprof ops --format json`` with the same
        options (``time_unit`` = ``--time-unit``: time rows in ns/us/ms/s; cycles, counts and
        bytes keep their own unit, named in the ``unit`` column; ``all`` = ``--all`` shows the
        OPERATOR_CALL wrappers; ``kind``, ``placement``, ``sort``, ``top`` as the options of
        the same names), plus ``samples``: the row's per-run values (sum over the run), in run
        order and in the row's unit, from which ``min`` .. ``total`` are computed. A statistic
        with no value is NaN (JSON null); ``instruction_id``, ``method``, ``operator`` and
        ``event_name`` are None when absent.

        ``htp_clock_ghz`` is ``--htp-clock-ghz``: with an HTP clock (that one, else the one the
        Profile's ``runtrace=`` measures, else its ``qhas=``'s, as the command takes it), QNN
        cycles rows are shown as an estimate of time (``unit`` ``est_us`` with time_unit us:
        cycles / GHz; their ``samples`` too) and the columns
        :data:`etprof.WALL_EST_COLUMNS` (``wall_est_p50``, ``wall_est_total``,
        ``wall_est_unit``: each HTP node's share of its partition's "excluding wait" wall time,
        by cycles -- an ESTIMATE, None/NaN on rows that are not such cycles rows) come after
        ``operator``, as in ``etprof ops --htp-clock-ghz G --format json``.

        ``samples`` chooses the type of each ``samples`` cell: ``"auto"`` (the default) a
        ``numpy.ndarray`` of float64 when numpy imports, else a list; ``"numpy"`` always an
        array (ImportError without numpy); ``"list"`` always a list of floats.

        With ``etrecord=`` at open, the columns of ``etprof ops --etrecord R`` come before
        ``samples`` (:data:`etprof.ETRECORD_COLUMNS`): ``op_types`` (the edge-program nodes'
        operators, ", "-joined), ``module`` and ``module_class`` (the innermost nn.Module),
        ``stack_trace`` (the innermost user frame, FILE:LINE), ``stack_trace_full`` and
        ``debug_handles``; None where the row is not joined (framework rows never are).

        Returns a pandas DataFrame (ImportError without pandas), or with ``as_dict`` a dict
        of column name -> list, in the order of :data:`etprof.OPS_COLUMNS`.

        Raises :class:`InputError` when the dump cannot be analysed (e.g. a block over the
        memory budget) and :class:`UsageError` for an unknown ``kind``, ``sort`` or
        ``time_unit``.
        """
        if samples not in ("auto", "numpy", "list"):
            raise UsageError('samples: expected "auto", "numpy" or "list", got %r' % (samples,))
        np = None if samples == "list" else _numpy(samples == "numpy", "ops(samples=\"numpy\")")
        if not as_dict:
            _need_pandas("Profile.ops()")
        cols, flat, lens = self._p.ops_table(time_unit=time_unit, all=bool(all), kind=kind,
                                             placement=placement, sort=sort, top=int(top),
                                             htp_clock_ghz=htp_clock_ghz)
        ends = list(memoryview(lens).cast("q"))
        for k in range(1, len(ends)):
            ends[k] += ends[k - 1]
        starts = [0] + ends[:-1]
        if np is not None:
            # one float64 array for every row's samples, each row's cell a slice (view) of it
            a = np.frombuffer(flat, dtype=np.float64).copy()
        else:
            a = memoryview(flat).cast("d").tolist()
        samples_col = ("samples", None, "o", [a[s:e] for s, e in zip(starts, ends)], None, False)
        names = OPS_COLUMNS if self.etrecord is None else \
            OPS_COLUMNS[:-1] + ETRECORD_COLUMNS + OPS_COLUMNS[-1:]
        by = {c[0]: c for c in cols}
        if "wall_est_p50" in by:
            k = names.index("operator") + 1
            names = names[:k] + WALL_EST_COLUMNS + names[k:]
        by["samples"] = samples_col
        # units: the statistics' unit is the row's (the unit column); named here when one
        units = {c: by[c][1] for c in names if by[c][1]}
        row_units = set(u for u in by["unit"][3] if u is not None)
        one = next(iter(row_units)) if len(row_units) == 1 else "per row: the unit column"
        for c in ("min", "p10", "p50", "p90", "avg", "max", "total", "samples"):
            units[c] = one
        return _frame([by[c] for c in names], as_dict=as_dict, what="Profile.ops()",
                      attrs=_attrs(self, time_unit=time_unit, units=units))

    def summary(self, *, time_unit: str = "us") -> dict[str, Any]:
        """What the dump holds: a dict with ``blocks``, ``blocks_read``, ``runs`` (runs kept),
        ``events`` and ``methods``: one dict per method with ``name`` (None when no program
        names it), ``runs``, ``skipped``, ``unit`` (of the latency: ``time_unit``, or
        ``ticks``), ``latency`` (Method::execute per run: n, min, p10, p50, p90, avg, max,
        total; NaN without Method::execute), ``profiling_level`` and ``candidates`` (the
        methods that fit, when none could be chosen), and ``backend_figures``: each backend's
        own figures as ``etprof summary --format json`` writes them (per backend an object,
        ``None`` when none of its events was seen; times in ``time_unit``, other figures with
        their unit named), from the library's ``etp_backend_figures_get``."""
        s = self._p.summary(time_unit=time_unit)
        s["backend_figures"] = _json.loads(
            self._p.backend_figures_json(time_unit=time_unit))["backend_figures"]
        return s

    def arm_pmu(self) -> dict[str, Any] | None:
        """The Ethos-U PMU report of the Arm bare-metal runner's serial log: ``runner_log``'s
        given to ``open``, else the one of the log this dump was read from (a log given to
        ``open`` in place of an ETDump; the library's ``etp_runner_log_read`` and
        ``etp_dump_arm_pmu``). None when there is neither; else
        ``{"report": R, "notes": [...]}``, R as ``etprof summary --format json`` writes its
        ``arm_pmu`` member (None when the log holds no report): ``line``, ``reports``,
        ``inferences``, ``etdump_runs``, ``npu``, ``figures`` (one dict per figure: ``name``,
        ``source`` (the log line's key: the stable one), ``total``, ``per_inference``, ``unit``:
        CPU cycles, NPU cycles, beats or count), ``npu_share_percent``, ``npu_share_basis``,
        ``runtime_wrapped``, ``lines_left_out``; the notes say what each figure can be trusted
        for."""
        text = self._p.arm_pmu_json()
        if text is None:
            return None
        d = _json.loads(text)
        return {"report": d["arm_pmu"], "notes": d.get("notes", [])}

    def vgf_device_time(self, *, time_unit: str = "us") -> dict[str, Any] | None:
        """The Arm VGF backend's device times from ``runner_log`` (its
        VGF_DATA_GRAPH_DEVICE_TIME lines, logged with EXECUTORCH_VGF_ENABLE_TIMESTAMP_QUERIES):
        None without ``runner_log`` or when the log has none; else ``{"device_time": R,
        "notes": [...]}``, R as ``etprof summary --runner-log F --format json`` writes its
        ``vgf_device_time`` member (statistics in ``time_unit``, the ETDump's VGF_EXECUTE for
        comparison), from the library's ``etp_fig_vgf_device_times``."""
        text = self._p.vgf_device_time_json(time_unit=time_unit)
        if text is None:
            return None
        d = _json.loads(text)
        return {"device_time": d["vgf_device_time"], "notes": d.get("notes", [])}


def _trace(self: Profile, path: PathArg, *, format: str | None = None) -> dict[str, int]:
    """Writes the Perfetto / chrome://tracing trace of every run to ``path`` (``etprof trace``;
    docs/trace.md), atomically: a temporary file beside it is renamed over it only when the
    whole trace was written, so a failure never leaves a partial file; a ``.gz`` path is written
    gzip-compressed, as the command does. ``format``: ``"json"`` (Chrome Trace Event JSON) or
    ``"perfetto"`` (Perfetto's protobuf trace, ``etprof trace --format perfetto``); None (the
    default) chooses by the name, as the command does: ``.pftrace`` (or ``.pftrace.gz``) is
    Perfetto's, anything else JSON. Returns the trace's
    counts (``processes``, ``tracks``, ``slices``, ``synthetic``, ``instants``, ``clamped``,
    ``unplaced``). Raises :class:`IOError` (with the path) when it cannot be written."""
    p = os.fspath(path)
    if format is None:
        name = os.fsdecode(p)
        format = "perfetto" if name.endswith((".pftrace", ".pftrace.gz")) else "json"
    if format not in ("json", "perfetto"):
        raise ValueError("format: \"json\" or \"perfetto\", got %r" % (format,))
    return self._p.write_trace(p, perfetto=format == "perfetto")


def _report(self: Profile, path: PathArg, *, time_unit: str = "us", qhas: PathArg | None = None,
            optrace: PathArg | None = None, runtrace: PathArg | None = None,
            heap: PathArg | None = None) -> dict[str, Any]:
    """Writes the self-contained HTML report (``etprof report``; docs/report.md) to ``path``,
    atomically as :meth:`trace` does. ``time_unit`` is the unit of its time columns; ``qhas``,
    ``optrace``, ``runtrace``, ``heap`` are QNN's own files, as the command's options (when
    none is given, those given to :func:`etprof.open`). Returns what it wrote: ``path``,
    ``bytes`` (the page's size), ``time_unit`` and the ``qnn_files`` it joined (path or None)."""
    f = (lambda v: None if v is None else os.fspath(v))
    if qhas is None and optrace is None and runtrace is None and heap is None:
        qf = self.qnn_files or {}
        qhas, optrace, runtrace, heap = (qf.get(k) for k in ("qhas", "optrace", "runtrace",
                                                              "heap"))
    out = os.fspath(path)
    self._p.write_report(out, time_unit=time_unit, qhas=f(qhas),
                         optrace=f(optrace), runtrace=f(runtrace), heap=f(heap))
    return {"path": out, "bytes": os.path.getsize(out), "time_unit": time_unit,
            "qnn_files": {"qhas": f(qhas), "optrace": f(optrace), "runtrace": f(runtrace),
                          "heap": f(heap)}}


#: The columns of Profile.events(): those of `etprof events --format csv`.
EVENT_COLUMNS = ("block", "index", "type", "kind", "label", "chain_index", "instruction_id",
                 "delegate_debug_id_int", "start_time", "end_time", "value", "unit", "parent",
                 "method", "operator", "backend")


def _attrs(self, **extra):
    """DataFrame.attrs of this Profile's tables: which files (and method) they come from."""
    a = {"etdump": self.etdump, "pte": self.pte, "method": self.method,
         "etrecord": self.etrecord, "library_version": __version__}
    a.update(extra)
    return a


def _with_attrs(df, attrs):
    """df with ``attrs`` (the file identity, time unit) in ``DataFrame.attrs``."""
    df.attrs.update(attrs)
    return df


def _blocks(self):
    """The block count; when None (closed, or busy in another thread), the C layer's error."""
    n = self._p.blocks
    if n is None:
        self._p.event_columns(0)  # raises ValueError (closed) or UsageError (busy)
    return n


def _trim(self):
    """After a pass over the blocks: the model's per-block scratch goes (and its share of the
    memory budget), so that an idle Profile holds only its file and its results."""
    try:
        self._p.trim()
    except (ValueError, UsageError):  # closed, or in use by another thread: nothing to do
        pass


def _iter_events(self):
    n = _blocks(self)
    try:
        for b in range(n):
            cols = self._p.event_columns(b)
            for i in range(len(cols["index"])):
                yield {k: cols[k][i] for k in EVENT_COLUMNS}
    finally:
        _trim(self)


def _events(self: Profile, *, stream: bool | None = None, as_dict: bool = False,
            max_events: int | None = 1_000_000) -> Frame | Iterator[dict[str, Any]]:
    """Every event of every block, with the model's classification: the columns of
    ``etprof events --format csv`` (:data:`etprof.EVENT_COLUMNS`: ``value`` in ``unit``, host
    time in ns; absent values None).

    With ``stream=True`` an iterator of one dict per event, decoding one block at a time (the
    dump is not copied into Python objects at once). Otherwise a DataFrame (a dict of columns
    with ``as_dict`` or without pandas) of all events; refused with :class:`UsageError` above
    ``max_events`` events (then stream, or raise the limit; None: no limit), so that a large
    dump is not materialised by accident."""
    if stream:
        return _iter_events(self)
    _blocks(self)
    n = self._p.events
    if max_events is not None and n > max_events:
        raise UsageError("Profile.events: %d events is more than max_events=%d; use "
                         "events(stream=True) or a larger max_events" % (n, max_events))
    if not as_dict:
        _need_pandas("Profile.events()")
    try:
        cols = self._p.events_table()  # the library's events table, whole columns
    finally:
        _trim(self)
    return _frame(cols, as_dict=as_dict, what="Profile.events()",
                  attrs=_attrs(self, host_time_unit="ns"))


Profile.events = _events


def _runs(self: Profile, *, time_unit: str = "us", warmup_factor: float = 1.5,
          outlier_k: float = 3.5, trend_alpha: float = 0.05, trend_pct: float = 5.0,
          as_dict: bool = False) -> Frame:
    """One row per run (``etprof runs``; docs/analyses.md): ``method`` (None with
    ``method_candidates`` when the program cannot tell), ``run``, ``block``, ``warmup``,
    ``outlier``, ``robust_z``, ``execute`` (Method::execute), ``delegate`` (all backends),
    ``cpu``, ``framework`` (the rest), ``unit``, ``backends`` (per backend: delegate time, the
    backend's own time inside it, the overhead around it) and ``qnn`` (QNN's top-level figures
    per partition, each with its unit). Times in ``time_unit``. The per-method verdicts
    (median, robust scale, trend, runs and tokens per second) are :meth:`run_methods`. A
    DataFrame (dict of columns with ``as_dict`` or without pandas)."""
    cols, _ = self._p.runs(time_unit=time_unit, warmup_factor=float(warmup_factor),
                           outlier_k=float(outlier_k), trend_alpha=float(trend_alpha),
                           trend_pct=float(trend_pct))
    pd = None if as_dict else _need_pandas("Profile.runs()")
    return cols if pd is None else _with_attrs(pd.DataFrame(cols, columns=list(cols)),
                                               _attrs(self, time_unit=time_unit))


def _run_methods(self: Profile, *, time_unit: str = "us", warmup_factor: float = 1.5,
                 outlier_k: float = 3.5, trend_alpha: float = 0.05, trend_pct: float = 5.0) -> list[dict[str, Any]]:
    """Per method, over its runs: ``name``, ``runs``, ``warmup_runs``, ``outliers``,
    ``steady_runs``, ``median``, ``robust_scale``, ``execute_total``, ``unit``, ``trend``
    (``verdict`` stable / drifting up / drifting down / too few runs, ``slope_per_run``,
    ``drift_pct``, ``p``, ``runs``), ``runs_per_second``, ``decode_style`` and
    ``tokens_per_second`` (every run, warm-up included), ``steady_execute_total``,
    ``runs_per_second_steady`` and ``tokens_per_second_steady`` (warm-up excluded)
    (``etprof runs --format json`` "methods")."""
    _, methods = self._p.runs(time_unit=time_unit, warmup_factor=float(warmup_factor),
                              outlier_k=float(outlier_k), trend_alpha=float(trend_alpha),
                              trend_pct=float(trend_pct))
    return methods


def _op_types(self: Profile, *, time_unit: str = "us", as_dict: bool = False) -> Frame:
    """The summary by operator type (``etprof ops --by type``; docs/analyses.md): per
    (method, domain cpu/htp/delegate, placement, unit, type) the rows grouped, ``count``,
    ``total``, ``avg``, ``per_run``, ``share`` and ``cum_share`` (percent of their group) and
    ``unit``; HTP nodes by their ATen op, XNNPACK-style ops by name without ``" #k"``, CPU
    kernels by operator. A DataFrame (dict of columns with ``as_dict`` or without pandas)."""
    cols = self._p.op_types(time_unit=time_unit)
    pd = None if as_dict else _need_pandas("Profile.op_types()")
    return cols if pd is None else _with_attrs(pd.DataFrame(cols, columns=list(cols)),
                                               _attrs(self, time_unit=time_unit))


def _tv(v, unit, unit_ns):
    if v is None or v != v:
        return None
    return v / unit_ns if unit == "ns" else v


def _fact_value(f, unit_ns, time_unit):
    """A plain fact as the command's JSON writes it (src/cli/cmd_explain.c json_facts):
    host-time numbers in the display unit; percentages, ratios and cycles as they are; whole
    numbers (bytes, cycles, us as the file gives them) as ints."""
    k = f["kind"]
    if k == "number":
        if f["unknown"] or f["value"] != f["value"]:  # not known, or NaN (JSON null)
            return None
        if f["integral"]:
            return int(f["value"])
        if f["percent"] or f["per_unit"] is not None or f["unit"] == "cycles":
            return f["value"]
        return _tv(f["value"], f["unit"], unit_ns)
    if k == "count":
        return f["count"]
    if k == "flag":
        return f["flag"]
    if k == "text":
        return time_unit if f["id"] == "time_unit" else f["text"]
    return None


def _top_op(f, unit_ns, time_unit):
    r = dict(f["row_data"])
    u = r["unit"]
    for k in ("p50", "avg", "total"):
        r[k] = _tv(r[k], u, unit_ns)
    r["unit"] = time_unit if u == "ns" else u
    return r


def _nest(facts, unit_ns, time_unit):
    """The facts (extra ones left out) nested as the command's JSON "facts" object: lists of
    records (objects by fact id, or plain values), records, top operators."""
    facts = [f for f in facts if not f["extra"]]
    out = {}
    i = 0
    while i < len(facts):
        f = facts[i]
        i += 1
        if f["list"] is not None:
            continue  # members are taken by their list below
        if f["kind"] in ("list", "record"):
            members = []
            while i < len(facts) and facts[i]["list"] == f["id"]:
                members.append(facts[i])
                i += 1
            if f["kind"] == "record":
                out[f["id"]] = {g["id"]: _fact_value(g, unit_ns, time_unit) for g in members}
            elif f["flag"]:
                out[f["id"]] = [(_top_op(g, unit_ns, time_unit) if g["kind"] == "row" else
                                 _fact_value(g, unit_ns, time_unit)) for g in members]
            else:
                recs, cur, item = [], None, None
                for g in members:
                    if g["kind"] == "row":
                        recs.append(_top_op(g, unit_ns, time_unit))
                        cur, item = None, None
                        continue
                    if g["item"] != item:
                        cur, item = {}, g["item"]
                        recs.append(cur)
                    cur[g["id"]] = _fact_value(g, unit_ns, time_unit)
                out[f["id"]] = recs
        elif f["kind"] == "row":
            out[f["id"]] = _top_op(f, unit_ns, time_unit)
        else:
            out[f["id"]] = _fact_value(f, unit_ns, time_unit)
    return out


def _settle(facts):
    return {f["id"]: f["settle"] for f in facts if f["cannot_tell"] and f["settle"]}


class Finding:
    """One of explain's findings (``etprof explain``; docs/analyses.md): ``id``
    ("same_thing", "npu_vs_cpu", "units", "hmx_vs_hvx", "memory_utilization", "cannot_tell",
    "missing"), ``question`` (its text), ``method`` (its method's name or None), ``facts`` (the
    command's JSON "facts" object: host time in ``time_unit``, named by its ``time_unit`` fact;
    cycles, percentages and the file's whole numbers as they are), ``cannot_tell`` (fact id ->
    what would settle it, for what the files cannot tell) and ``raw`` (the library's flat typed
    fact records, each with its ``unit``) and ``answer`` (the command's prose answer with the
    file's numbers, as in its text and JSON output)."""

    __slots__ = ("id", "question", "method", "facts", "cannot_tell", "raw", "answer")

    def __repr__(self):
        return "<etprof Finding %s%s: %d facts>" % (
            self.id, "" if self.method is None else " (%s)" % self.method, len(self.raw))


class Explain(list):
    """The answers of ``etprof explain``: a list of :class:`Finding` (the structured findings,
    each with ``id``, ``question``, ``method``, ``facts`` with their units, ``cannot_tell``,
    ``raw`` and ``answer``), plus ``text`` (the command's text output, byte for byte),
    ``findings`` (the command's JSON records: ``id``, ``method``, ``question``, ``answer``,
    ``facts``) and ``json`` (its whole JSON document: findings, notes, data_quality)."""

    text = ""
    findings = ()
    json = None

    def __repr__(self):
        return "<etprof.Explain: %d findings (%s)>" % (
            len(self), ", ".join(f.id for f in self))

    def _repr_html_(self):
        return "".join(f._repr_html_() for f in self)


def _explain(self: Profile, *, time_unit: str = "us", top: int = 5,
             htp_clock_ghz: float | None = None) -> Explain:
    """The answers of ``etprof explain`` (an :class:`Explain`: a list of :class:`Finding`),
    from the library's typed facts (etprof_explain.h) and the command's own document
    (``etp_explain_doc``, etprof_explain_doc.h): ``.text`` is exactly what
    ``etprof explain FILE [--pte P] [--qhas Q ...]`` prints (the title names the dump as given
    to :func:`open`), ``.findings`` / ``.json`` its ``--format json`` findings and document.
    The QNN files given to :func:`open` (``qhas``, ``optrace``, ``runtrace``, ``heap``) are the
    command's options: joined to the dump, they answer the HMX/HVX and memory questions.
    ``htp_clock_ghz`` is ``--htp-clock-ghz`` (else the clock of those files). ``top`` is the
    number of operators named per method (the command's is 5)."""
    unit_ns = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}.get(time_unit)
    if unit_ns is None:
        raise UsageError('time_unit: expected ns, us, ms or s, got "%s"' % time_unit)
    out = Explain()
    out.text = self._p.explain_doc(time_unit=time_unit, top=int(top),
                                   htp_clock_ghz=htp_clock_ghz, format="table")
    out.json = _json.loads(self._p.explain_doc(time_unit=time_unit, top=int(top),
                                               htp_clock_ghz=htp_clock_ghz, format="json"))
    out.findings = out.json["findings"]
    answers = {}
    for x in out.findings:
        answers.setdefault((x["id"], x["method"]), x["answer"])
    for fd in self._p.explain(top=int(top)):
        f = Finding()
        f.id = fd["id"]
        f.question = fd["question_text"]
        f.method = fd["method_name"]
        f.raw = fd["facts"]
        f.facts = _nest(fd["facts"], unit_ns, time_unit)
        f.cannot_tell = _settle(fd["facts"])
        f.answer = answers.get((f.id, f.method))
        out.append(f)
    return out


#: The columns of Profile.modules(): the rows of ``etprof modules --format csv`` (method,
#: domain, depth, module, class, inclusive, exclusive, share, count, count_exclusive, unit)
#: plus ``no_module``, ``parent`` (the enclosing module's row index, -1 at the top) and ``runs``.
MODULE_COLUMNS = ("method", "domain", "depth", "module", "class", "no_module", "parent",
                  "inclusive", "exclusive", "share", "count", "count_exclusive", "unit", "runs")


def _modules(self: Profile, module: str | None = None, *, time_unit: str = "us",
             as_dict: bool = False) -> Frame:
    """Time per ``nn.Module`` (``etprof modules FILE --etrecord R``; docs/analyses.md), from
    the library's ``etp_modules_compute``: needs ``etrecord=`` given to :func:`open`. One row
    per module and domain in tree order (depth first; each domain's ``(no module)`` row last),
    the columns :data:`MODULE_COLUMNS`: ``domain`` is ``time`` (host time, in ``time_unit``)
    or ``htp_cycles`` (QNN HTP cycles, a work share: never added to time); ``inclusive`` (the
    module and everything below it) and ``exclusive`` (rows whose innermost module it is) are
    sums over the runs of the rows' exclusive values, so nothing is counted twice and a
    domain's top-level rows add up to its total; ``share`` is percent of the domain total;
    ``count``/``count_exclusive`` profiling rows; ``unit`` names each row's unit. ``module``
    keeps that module and what is below it (``--module``; an unknown one is a
    :class:`UsageError`). A DataFrame whose ``attrs`` hold ``domains`` (per method and domain:
    ``unit``, ``runs``, ``total``, ``rows``, ``rows_module``), ``joins`` and ``etrecord``; with
    ``as_dict`` (or without pandas) the dict of columns."""
    cols, meta = self._p.modules_columns(time_unit=time_unit, module=module)
    pd = None if as_dict else _need_pandas("Profile.modules()")
    if pd is None:
        return cols
    df = pd.DataFrame(cols, columns=list(MODULE_COLUMNS))
    df.attrs.update(_attrs(self, time_unit=time_unit))
    df.attrs.update(meta)
    return df


class CheckOutputs:
    """The result of :func:`check_outputs` (``etprof check-outputs --format json``):
    ``outputs`` (one dict per checked output, the command's keys: ``run``, ``block``,
    ``output_index``, ``method``, ``status`` — "pass", "fail", "shape differs", "dtype differs",
    "kind differs", "missing", "extra" — ``within_tolerance``, ``dtype``, ``expected_dtype``,
    ``shape``, ``expected_shape``, ``numel``, ``mismatched`` (elements outside the tolerance),
    ``max_abs`` (largest |actual - expected|, in the tensor's own values: no unit; NaN when
    none), ``tolerance_used`` (False: compared exactly), plus ``actual_scalar`` for an inline
    Int/Bool/Float/Double output), ``runs`` (runs that logged method outputs), ``checked``,
    ``failed``, ``passed`` (None when no run logged outputs: nothing could be checked — the
    command's exit 6), ``test_case``, ``rtol``, ``atol``; ``verdicts`` is the list of
    statuses; ``exit_code`` the command's exit code for it (0 passed, 7 an output failed, 6
    nothing to check); :meth:`to_dataframe` the outputs as a DataFrame (needs pandas)."""

    def __init__(self, d):
        self.__dict__.update(d)
        self.verdicts = [o["status"] for o in self.outputs]
        self.exit_code = 6 if self.passed is None else 0 if self.passed else 7

    def to_dataframe(self) -> pandas.DataFrame:
        pd = _pandas()
        if pd is None:
            raise ImportError("CheckOutputs.to_dataframe needs pandas (Debian python3-pandas)")
        return pd.DataFrame(self.outputs)

    def __repr__(self):
        state = ("nothing to check: no method outputs were logged" if self.passed is None else
                 "passed" if self.passed else "%d of %d failed" % (self.failed, self.checked))
        return "<etprof.CheckOutputs test case %d: %d run(s), %d output(s): %s>" % (
            self.test_case, self.runs, self.checked, state)

    def _repr_html_(self):
        return ("<p><b>etprof.CheckOutputs</b> %s</p>" % _html.escape(repr(self)) +
                _html_table(("run", "output", "status", "dtype", "numel", "mismatched",
                             "max |diff|"),
                            [(o["run"], o["output_index"], o["status"], o["dtype"], o["numel"],
                              o["mismatched"], o["max_abs"]) for o in self.outputs]))


def check_outputs(bundled_program: PathArg, etdump: PathArg, debug_buffer: PathArg | None = None, *,
                  test_case: int = 0, rtol: float | None = None, atol: float | None = None,
                  method: str | None = None, ignore_program_mismatch: bool = False) -> CheckOutputs:
    """The method outputs a run logged, compared with a bundled program's expected outputs
    (``etprof check-outputs ETDUMP --pte BPTE --debug-buffer B``; docs/tensors.md), by the
    library's ``etp_check_outputs``: for every run that logged method outputs (debug events
    flagged as outputs: ``--debug_level outputs`` or ``intermediate``), output k against
    expected output k of test case ``test_case`` of the method's suite. HALF/FLOAT/DOUBLE
    elements pass when |actual - expected| <= atol + rtol x |actual| (ExecuTorch's rule; the
    defaults are ExecuTorch's, rtol 1e-5, atol 1e-8), other types when equal; a dtype, shape or
    kind difference and a missing or unexpected output fail. ``bundled_program``, ``etdump``
    and ``debug_buffer`` are paths or bytes (as :func:`open`). Returns a
    :class:`CheckOutputs`. Errors as :func:`open`: a damaged file is a located
    :class:`InputError`; an unknown test case or method suite, or a negative tolerance, a
    :class:`UsageError`; a logged tensor outside (or without) the buffer a located
    :class:`InputError`."""
    with open(etdump, bundled_program, method=method, debug_buffer=debug_buffer,
              ignore_program_mismatch=ignore_program_mismatch) as p:
        return CheckOutputs(p._p.check_outputs(test_case=int(test_case), rtol=rtol, atol=atol))


def _session(self: Profile, *, prefill_runs: int | None = None, prompt_tokens: int | None = None,
             time_unit: str = "us", top: int = 5) -> dict[str, Any]:
    """The LLM generations of the dump (``etprof session FILE --pte P --format json``;
    docs/session.md), built by the library's ``etp_session_doc`` and returned as a dict:
    ``phases`` (how prefill and decode were told apart: ``decided_by`` method, option,
    inferred or mixed, ``ambiguous`` and its ``statement``), ``generations`` (per generation
    ``prefill`` with ``ttft`` and ``tokens_per_second``, ``decode`` with steady and all-steps
    ``tokens_per_second``, ``token_latency``, ``slowest`` and the ``latencies`` series, and
    each phase's split), ``runs`` and ``notes``. ``prefill_runs`` is ``--prefill-runs N``,
    ``prompt_tokens`` ``--prompt-tokens N``. Times in ``time_unit``; ``None`` for null."""
    return _json.loads(self._p.session_json(prefill_runs=int(prefill_runs or 0),
                                            prompt_tokens=int(prompt_tokens or 0),
                                            time_unit=time_unit, top=int(top)))


def _tree(self: Profile, *, stat: str = "p50", time_unit: str = "us",
          htp_clock_ghz: float | None = None) -> dict[str, Any]:
    """The hierarchy of each method's time (``etprof tree FILE [--pte P] --format json``;
    docs/analyses.md), built by the library's ``etp_tree_doc`` (the command's own document) and
    returned as nested dicts, equal to ``json.loads`` of the command's output for the same
    inputs and options: ``stat``, ``time_unit``, ``methods`` (per method ``name``,
    ``method_candidates``, ``runs``, ``skipped_runs`` and ``roots``: nodes with ``name``,
    ``kind``, ``placement``, ``instruction_id``, ``operator``, ``count``, ``runs``, ``role``
    (time, fact, htp_node), ``unit``, ``inclusive``, ``exclusive``, ``overhead``,
    ``share_of_parent``, ``share_of_method`` (percent), ``meaning`` and ``children``),
    ``notes`` and ``data_quality``. Every number is the per-run statistic ``stat`` (min, p10,
    p50, p90, avg, max) of the node's per-run value, in the node's ``unit`` (host time in
    ``time_unit``). ``htp_clock_ghz`` (``--htp-clock-ghz``; else the clock of the Profile's
    ``runtrace``/``qhas``) shows cycles as ``est_`` time estimates with ``wall_estimate``
    per HTP node. With ``etrecord=`` given to :func:`open`, each node also has the
    ``etprof tree --etrecord`` members (op_types, module, ...). JSON ``null`` is ``None``."""
    return _json.loads(self._p.tree_json(stat=stat, time_unit=time_unit,
                                         htp_clock_ghz=htp_clock_ghz))


def _html_table(headers, rows):
    esc = _html.escape
    h = "".join("<th>%s</th>" % esc(str(x)) for x in headers)
    b = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % esc("" if v is None else
                                                              ("%.6g" % v if isinstance(v, float)
                                                               else str(v))) for v in r)
                for r in rows)
    return "<table><thead><tr>%s</tr></thead><tbody>%s</tbody></table>" % (h, b)


def _profile_html(self):
    """A notebook's view: what the file is and each method's latency (Profile.summary)."""
    if self.closed:
        return "<p>%s</p>" % _html.escape(repr(self))
    s = self.summary()
    rows = [(m["name"] if m["name"] is not None else "(unknown: %s)" % (m["candidates"] or "?"),
             m["runs"], m["latency"]["p50"], m["latency"]["avg"], m["latency"]["min"],
             m["latency"]["max"], m["unit"], m["profiling_level"]) for m in s["methods"]]
    return ("<p><b>etprof.Profile</b> %s: %d blocks, %d events, %d runs kept</p>" %
            (_html.escape(str(self.etdump)), s["blocks"], s["events"], s["runs"]) +
            _html_table(("method", "runs", "Method::execute p50", "avg", "min", "max", "unit",
                         "profiling"), rows))


def _finding_html(self):
    rows = [(k, v) for k, v in self.facts.items() if not isinstance(v, (list, dict))]
    return ("<p><b>%s</b>%s: %s</p>" % (_html.escape(self.id), "" if self.method is None else
                                          " (%s)" % _html.escape(self.method),
                                          _html.escape(self.question or "")) +
            _html_table(("fact", "value"), rows))


def _diff_html(self):
    rows = [(m["method"], m["p50_base"], m["p50_new"], m["p50_pct"], m["p_value"], m["verdict"],
             m["gate"], m["unit"]) for m in self.methods]
    return ("<p><b>etprof.Diff</b>: %s; gate <b>%s</b>: %s</p>" %
            (_html.escape(self.result), _html.escape(self.gate["outcome"]),
             _html.escape(self.gate["reason"])) +
            _html_table(("method", "p50 base", "p50 new", "p50 %", "p", "verdict", "gate",
                         "unit"), rows))


Profile.explain = _explain
Profile.tree = _tree
Profile.session = _session
Profile.modules = _modules
Profile.op_types = _op_types
Profile.runs = _runs
Profile.run_methods = _run_methods


class Diff:
    """BASE against NEW (:func:`etprof.diff`): the figures of ``etprof diff --format json``.

    ``result`` (the methods' verdicts in one word), ``gate`` (the CI gate's decision over the
    methods' latencies: ``outcome`` pass / regression / improvement / inconclusive, ``reason``
    and the counts), ``regressed`` (the gate's outcome is a regression), ``summary`` (counts),
    ``methods`` (one dict per method: ``method``, the latency comparison flattened in —
    ``p50_base``, ``p50_new``, ``p50_pct``, ``p_value``, ``verdict``, ``gate``,
    ``gate_reason``, ``unit``... — and the CPU/delegate shares), ``ops`` (one row per operator
    row: ``status`` matched/added/removed, ``method``, ``name``, ``kind``, ``instruction_id``,
    then the same comparison fields; a DataFrame with pandas), ``placement`` (operators that
    moved between CPU and a delegate, partition count changes) and ``arm_pmu`` (the Arm runner's
    Ethos-U PMU reports compared, ``{"arm_pmu": {...}, "notes": [...]}`` as the command's JSON
    member and notes, when either side has a report; else None). Time values are in
    ``time_unit``; other units stay as they are, named in ``unit``."""

    __slots__ = ("result", "gate", "summary", "methods", "ops", "placement", "arm_pmu")

    def __init__(self, d, as_dict, arm_pmu=None):
        self.arm_pmu = arm_pmu
        self.result = d["result"]
        self.gate = d["gate"]
        self.summary = d["summary"]
        self.methods = []
        for m in d["methods"]:
            row = {"method": m["method"]}
            row.update(m["latency"])
            row.update({k: v for k, v in m.items() if k not in ("method", "latency")})
            self.methods.append(row)
        rows = [dict({k: v for k, v in o.items() if k != "cmp"}, **o["cmp"]) for o in d["ops"]]
        pd = None if as_dict else _need_pandas("qnn() tables")
        self.ops = rows if pd is None else pd.DataFrame(rows)
        self.placement = d["placement"]

    @property
    def regressed(self) -> bool:
        return self.gate["outcome"] == "regression"

    def __repr__(self):
        return "<etprof.Diff: %s; gate %s: %s>" % (self.result, self.gate["outcome"],
                                                   self.gate["reason"])


class Qnn:
    """QNN's own profiling files analysed (``etprof qnn --qhas F [--optrace F] [--runtrace F]
    [--heap F]``; docs/qnn-inputs.md): ``ops`` (one row per QNN op: ``qnn_op``, ``op_id``,
    ``qnn_op_type``, ``cycles`` and ``share`` of all rows' cycles, ``hmx``/``hvx``/``dma`` use,
    ``htp_ops``, DRAM/VTCM bytes (QHAS only, else None), cycles of the HTP ops using each unit;
    a DataFrame with pandas), ``summary`` (utilization and idle %, timeline cycles, clock GHz
    and its source, peak VTCM and DRAM/VTCM bytes, HMX/HVX busy cycles and shares, per-thread
    busy, the dominant (critical) path, heap delta, the HMX/HVX/DMA op counts) and
    ``rows_source`` (qhas or optrace); from :meth:`Profile.qnn` with a program, ``soc``: the
    SoC, HTP architecture and VTCM budget its QNN delegates were compiled for, and the peak
    VTCM's share of that budget (the command's "soc"; None without a program or a spec). Cycles
    are HTP cycles; busy cycles are summed over the hardware threads (work, not wall time)."""

    __slots__ = ("ops", "summary", "rows_source", "join", "soc")

    def __repr__(self):
        j = "" if self.join is None else ", %d of %d joined to %s's HTP nodes (%s)" % (
            self.join["matched"], self.join["qnn_ops"], self.join["method"] or "the dump",
            self.join["cycle_agreement"]["verdict"])
        return "<etprof.Qnn: %d QNN ops from %s%s>" % (self.summary["qnn_ops"], self.rows_source,
                                                      j)


def qnn(*, qhas: PathArg | None = None, optrace: PathArg | None = None,
        runtrace: PathArg | None = None, heap: PathArg | None = None, sort: str = "cycles",
        top: int = 0, htp_clock_ghz: float | None = None, as_dict: bool = False) -> Qnn:
    """Loads QNN's own files (paths) and returns a :class:`Qnn`, the figures of
    ``etprof qnn --format json`` without an ETDump; ``sort`` orders the ops as ``--sort`` does
    (default cycles, largest first; "order" keeps file order), ``top`` keeps the first N rows
    (``--top``; 0: all), ``htp_clock_ghz`` sets the HTP clock (``--htp-clock-ghz``: the
    summary's ``clock_ghz``, with ``clock_source`` "htp-clock-ghz")."""
    f = (lambda v: None if v is None else os.fspath(v))
    d = _etprof.qnn(qhas=f(qhas), optrace=f(optrace), runtrace=f(runtrace), heap=f(heap),
                    sort=sort, htp_clock_ghz=htp_clock_ghz)
    return _make_qnn(d, as_dict, top)


#: The columns of QnnViewer.events: one row per event of every execute, top-level events first,
#: then the HTP nodes (``etprof qnn --profile-log F --format json``'s ``executes``).
QNN_VIEWER_COLUMNS = ("execute", "level", "name", "qnn_op", "op_id", "kind", "value", "unit",
                      "written_value", "qtimer_ticks_converted", "share", "wall_est_us")


class QnnViewer:
    """qnn-profile-viewer's own output (its text log, or its CSV) read by
    :func:`qnn_viewer`, as ``etprof qnn --profile-log F`` / ``--profile-csv F`` gives it
    (docs/qnn-inputs.md): ``facts`` (the command's JSON: ``format``, the viewer, net-run and
    backend versions, ``executes`` -- per execute its top-level ``events`` and its HTP ``nodes``
    with their cycles, ``share`` of the execute's Accelerator (execute) time (cycles) in percent
    and ``wall_est_us``, an ESTIMATE: that share of the execute's "excluding wait" time --,
    ``other_stats``, ``skipped_sections`` and ``notes``), ``events`` (those as one table:
    :data:`etprof.QNN_VIEWER_COLUMNS`; a DataFrame with pandas) and ``text`` (the command's
    table). Node cycles are busy cycles summed over the HTP threads (work, not wall time); the
    two VTCM / power-on "us" values are 19.2 MHz QTimer ticks, converted
    (``qtimer_ticks_converted``, ``written_value`` is what the file says)."""

    __slots__ = ("path", "facts", "events", "text")

    def __repr__(self):
        n = sum(len(e["nodes"]) for e in self.facts["executes"])
        return "<etprof.QnnViewer: %s (%s), %d execute(s), %d HTP node rows>" % (
            self.path, self.facts["format"], len(self.facts["executes"]), n)


def qnn_viewer(path: PathArg, *, as_dict: bool = False) -> QnnViewer:
    """Reads qnn-profile-viewer output (text or CSV, told apart by its content) and returns a
    :class:`QnnViewer`: ``etprof qnn --profile-log/--profile-csv PATH``. A malformed file raises
    :class:`InputError` with the command's located line."""
    p = os.fspath(path)
    v = QnnViewer()
    v.path = p
    v.facts = _json.loads(_etprof.qnn_viewer_text(p, format="json"))
    v.text = _etprof.qnn_viewer_text(p, format="table")
    cols = {k: [] for k in QNN_VIEWER_COLUMNS}
    for ex in v.facts["executes"]:
        for e in ex["events"]:
            row = dict(execute=ex["index"], level="top", name=e["name"], qnn_op=None, op_id=None,
                       kind=None, value=e["value"], unit=e["unit"],
                       written_value=e["written_value"],
                       qtimer_ticks_converted=e["qtimer_ticks_converted"], share=None,
                       wall_est_us=None)
            for k in QNN_VIEWER_COLUMNS:
                cols[k].append(row[k])
        for e in ex["nodes"]:
            row = dict(execute=ex["index"], level="node", name=e["name"], qnn_op=e["qnn_op"],
                       op_id=e["op_id"], kind=e["kind"], value=e["cycles"], unit=e["unit"],
                       written_value=e["cycles"], qtimer_ticks_converted=False,
                       share=e["share"], wall_est_us=e["wall_est_us"])
            for k in QNN_VIEWER_COLUMNS:
                cols[k].append(row[k])
    pd = None if as_dict else _need_pandas("qnn_viewer()")
    if pd is None:
        v.events = cols
    else:
        v.events = pd.DataFrame(cols, columns=list(QNN_VIEWER_COLUMNS))
        v.events["op_id"] = pd.array(cols["op_id"], dtype="Int64")
    return v


def _make_qnn(d, as_dict, top=0):
    if top < 0:
        raise UsageError("top: expected a number of rows >= 0, got %r" % (top,))
    q = Qnn()
    q.rows_source = d["rows_source"]
    q.summary = d["summary"]
    q.join = d["join"]
    q.soc = d.get("soc")
    ops = d["ops"]
    if top:
        ops = {k: v[:top] for k, v in ops.items()}
    pd = None if as_dict else _need_pandas("qnn() tables")
    q.ops = ops if pd is None else pd.DataFrame(ops, columns=list(ops))
    return q


def _profile_qnn(self: Profile, *, sort: str = "cycles", top: int = 0,
                 htp_clock_ghz: float | None = None, as_dict: bool = False) -> Qnn:
    """QNN's own files given to :func:`etprof.open` (``qhas``, ``optrace``, ``runtrace``,
    ``heap``) joined to this dump's QNN HTP node rows, as ``etprof qnn DUMP --pte P --qhas Q
    ... --format json``: a :class:`Qnn` whose ``ops`` also has ``etdump_cycles`` (the p50 over
    the runs of the row's ETDump node, NaN when none matched) and whose ``join`` is the
    command's "join" object: ``method``, ``method_candidates``, ``instruction_id`` (the
    DELEGATE_CALL), ``etdump_nodes``, ``qnn_ops``, ``matched`` (by OpId / by name only),
    ``etdump_only``, ``qnn_only``, ``name_only``, ``conflicts`` and ``cycle_agreement``
    (compared, equal, different, max_abs_diff_cycles, verdict, different_ops). ``sort`` orders
    the ops as ``--sort`` (also "etdump_cycles"), ``top`` and ``htp_clock_ghz`` as in
    :func:`etprof.qnn`. UsageError when no QNN file was given."""
    return _make_qnn(self._p.qnn(sort=sort, htp_clock_ghz=htp_clock_ghz), as_dict, top)


Profile.qnn = _profile_qnn


def diff(base: PathArg | Profile, new: PathArg | Profile, *, base_pte: PathArg | None = None,
         new_pte: PathArg | None = None, time_unit: str = "us", alpha: float = 0.05,
         min_runs: int = 3, no_change_pct: float = 1.0, threshold_pct: float = 0.0,
         fail_pct: float | None = None, as_dict: bool = False) -> Diff:
    """Compares two profiles as ``etprof diff BASE NEW`` does (docs/diff.md): each side a
    :class:`Profile` or an ETDump path (opened with ``base_pte`` / ``new_pte``); the options are
    the command's (``--alpha``, ``--min-runs``, ``--threshold``, ``--fail-on-regression PCT`` =
    ``fail_pct``). Returns a :class:`Diff`. The programs are taken to differ (operators matched
    by name) when both sides have a program and their bytes differ, as the command does."""
    a = base if isinstance(base, Profile) else open(base, base_pte)
    b = new if isinstance(new, Profile) else open(new, new_pte if new_pte is not None else base_pte)
    pa, pb = a.pte, b.pte
    # the command's rule: two programs whose bytes differ
    differ = pa is not None and pb is not None and not filecmp.cmp(pa, pb, shallow=False)
    d = _etprof.diff(a._p, b._p, time_unit=time_unit, alpha=float(alpha), min_runs=int(min_runs),
                     no_change_pct=float(no_change_pct), threshold_pct=float(threshold_pct),
                     fail_pct=None if fail_pct is None else float(fail_pct),
                     programs_differ=differ)
    pmu = _etprof.arm_pmu_diff_json(a._p, b._p)
    return Diff(d, as_dict, None if pmu is None else _json.loads(pmu))
Profile.trace = _trace
Profile.report = _report


def open(etdump: Data, pte: Data | None = None, *, method: str | None = None,  # noqa: A001
         skip_first: int = 0, block: str | None = None, tick_hz: float | None = None,
         ignore_program_mismatch: bool = False, debug_buffer: Data | None = None,
         etrecord: PathArg | None = None, qhas: PathArg | None = None,
         optrace: PathArg | None = None, runtrace: PathArg | None = None,
         heap: PathArg | None = None, tick_ns: float | None = None, ticks: bool = False,
         runner_log: PathArg | None = None) -> Profile:
    """Opens and verifies an ETDump, and its program when ``pte`` is given.

    ``etdump`` is a path (str or os.PathLike) or the dump's content (``bytes``, used without a
    copy and kept alive by the Profile; other buffers such as bytearray are copied first, so
    that later changes cannot reach verified data); its errors then name the file "<bytes>".
    ``pte`` is a path, or the program's content (``bytes`` kept without a copy, other buffers
    copied; named "<pte bytes>" in errors). The whole dump is verified before this returns, as
    the command does.

    The options are those of the command: ``method`` (``--method``, needs ``pte``) forces the
    execution plan of every run; ``skip_first`` (``--skip-first``) drops the first N runs of
    each method (warm-up); ``block`` (``--block``) takes the blocks of that name as the runs
    instead of the Execute blocks; ``tick_hz`` (``--tick-hz``) is the rate of the dump's host
    clock (default: ns ticks, as on Linux and Android), ``tick_ns`` (``--tick-ns``) the same as
    nanoseconds per tick, and ``ticks=True`` (``--ticks``) keeps host times in ticks of unknown
    rate (the three exclude each other); ``ignore_program_mismatch``
    (``--ignore-program-mismatch``) leaves blocks the program cannot explain unresolved instead
    of raising InputError. ``debug_buffer`` is the debug buffer the runtime wrote the logged
    tensors into (``--debug-buffer``): a path or its content as bytes (named "<debug_buffer>"
    in errors), needed by :meth:`Profile.tensors`, :meth:`Profile.tensor` and
    :func:`etprof.compare`; it is opened first, as the commands do. ``etrecord`` is the
    ETRecord (a path: ``--etrecord``) whose nodes :meth:`Profile.ops` joins to its rows; it is
    read and verified here (InputError for a damaged record, IOError when it cannot be read).
    ``qhas``, ``optrace``, ``runtrace``, ``heap`` are QNN's own profiling files (paths; the
    options of ``etprof qnn``), read here, joined to the dump by :meth:`Profile.qnn` and used
    by :meth:`Profile.report`. ``runner_log`` is the runner's log when the ETDump is a file
    apart from it (``--runner-log``): its Ethos-U PMU report and VGF device times, read here,
    are what :meth:`Profile.arm_pmu`, :meth:`Profile.vgf_device_time`, :meth:`Profile.explain`
    and :meth:`Profile.report` show (InputError when the log holds neither).

    Raises :class:`InputError` (with ``.file``, ``.offset``, ``.path``, ``.reason``) for a
    corrupt, truncated or wrong file, :class:`UsageError` for an impossible request (an
    unknown method, ``method`` without ``pte``), :class:`IOError` when a file cannot be read.
    """
    return Profile(etdump, pte, method=method, skip_first=skip_first, block=block,
                   tick_hz=tick_hz, ignore_program_mismatch=ignore_program_mismatch,
                   debug_buffer=debug_buffer, etrecord=etrecord, qhas=qhas, optrace=optrace,
                   runtrace=runtrace, heap=heap, tick_ns=tick_ns, ticks=ticks,
                   runner_log=runner_log)


#: The columns of Profile.tensors(): the keys of `etprof tensors --format json` rows.
TENSOR_COLUMNS = ("block", "event", "instruction_id", "chain_index", "output", "method",
                  "operator", "delegate_debug_id_int", "entry", "dtype", "shape", "strides",
                  "offset", "numel", "min", "max", "mean", "std", "nan", "inf", "zero_fraction",
                  "values")


def _select(n, select, what):
    """Row indices of a select= argument: None (all), an int, a slice or an iterable of ints."""
    if select is None:
        return list(range(n))
    if isinstance(select, slice):
        return list(range(n))[select]
    if isinstance(select, int) and not isinstance(select, bool):
        select = [select]
    out = []
    for i in select:
        if not isinstance(i, int) or isinstance(i, bool):
            raise UsageError("%s: select: expected row indices (int), got %r" % (what, i))
        j = i + n if i < 0 else i
        if not 0 <= j < n:
            raise IndexError("%s: row %d out of range (%d rows)" % (what, i, n))
        out.append(j)
    return out


def _tensors(self: Profile, select: str | None = None, *, as_dict: bool = False) -> Frame:
    """Every tensor and value the runtime logged (``etprof tensors --debug-buffer B --format
    json``; needs ``debug_buffer=`` at open): one row per logged tensor, TensorList element or
    inline int/bool/float/double, in the command's order, with its columns
    (:data:`etprof.TENSOR_COLUMNS`): ``block``, ``event``, ``instruction_id``, ``chain_index``,
    ``output`` (a method output), ``method``, ``operator`` (with a program), ``entry``
    ("tensor", "tensor_list[k]", "int"...), ``dtype``, ``shape`` and ``strides`` (lists, in
    elements), ``offset`` (bytes into the debug buffer; None for inline values), ``numel``,
    ``min``/``max``/``mean``/``std`` over the finite values (NaN when none), ``nan``, ``inf``,
    ``zero_fraction`` and ``values`` (the first 8 elements in row-major order). The row index
    is the one :meth:`tensor` takes.

    ``select`` keeps some rows: an int, a slice or an iterable of row indices (None: all), or
    a str: the command's ``--select EXPR`` (the library's ``etp_tensor_select_parse``/
    ``_match``; comma-separated criteria that must all hold: ``instr=N``/``instr=A-B``,
    ``run=N``/``run=A-B`` (the N-th block that logged values, from 0), ``block=N``/``block=A-B``,
    ``op=TEXT`` (operator name contains TEXT, e.g. ``op=aten.add``), ``op==TEXT``), in which
    case the rows are exactly those of ``etprof tensors --select EXPR`` and a bad EXPR raises
    :class:`UsageError` naming the term (``.path``) and its character offset (``.offset``).
    A DataFrame when pandas imports (and not ``as_dict``), else a dict of column lists.
    Raises :class:`InputError` when a tensor's bytes lie outside the buffer or there is no
    buffer (located: the buffer's name, the tensor's offset, the event's path)."""
    cols = self._p.tensor_columns()
    cols = {k: cols[k] for k in TENSOR_COLUMNS}
    if isinstance(select, str):
        idx = self._p.tensor_select(select)
        cols = {k: [v[i] for i in idx] for k, v in cols.items()}
    elif select is not None:
        idx = _select(len(cols["block"]), select, "tensors")
        cols = {k: [v[i] for i in idx] for k, v in cols.items()}
    pd = None if as_dict else _need_pandas("Profile.tensors()")
    if pd is None:
        return cols
    df = pd.DataFrame(cols, columns=list(TENSOR_COLUMNS))
    df["offset"] = pd.array(cols["offset"], dtype="Int64")
    return _with_attrs(df, _attrs(self))


_INLINE_DTYPES = {"int": "int64", "bool": "bool", "float": "float32", "double": "float64"}


def _tensor(self: Profile, i: int) -> Any:
    """The values of row ``i`` of :meth:`tensors` as a ``numpy.ndarray`` with the file's dtype
    and shape, elements in row-major order read through the file's strides (so the array is
    C-contiguous). The bytes are those :c:func:`etp_tensor_write_npy` writes (``etprof tensors
    --dump``): HALF is float16, BFLOAT16 and the FLOAT8 types widened exactly to float32,
    quantized types their stored integers. An inline value is a 0-d array (int64, bool,
    float32, float64); a tensor logged without bytes (offset -1, an empty tensor) a 0-element
    array of its dtype (its shape is in :meth:`tensors`). Needs numpy (ImportError naming python3-numpy without it); IndexError
    for a row that does not exist."""
    np = _numpy(True, "Profile.tensor()")
    if not isinstance(i, int) or isinstance(i, bool):
        raise TypeError("Profile.tensor: expected a row index (int), got %r" % (i,))
    if i < 0:
        raise IndexError("Profile.tensor: row %d out of range" % i)
    kind, v = self._p.tensor_npy(i)
    if kind == "npy":
        return np.load(_io.BytesIO(v), allow_pickle=False)
    if kind == "empty":  # logged without bytes (offset -1): no values, the file's dtype
        f = _io.BytesIO(v)
        np.lib.format.read_magic(f)
        _, _, dtype = np.lib.format.read_array_header_1_0(f)
        return np.empty((0,), dtype=dtype)
    return np.array(v, dtype=_INLINE_DTYPES[kind])


Profile.tensors = _tensors
Profile.tensor = _tensor

#: The columns of Compare.tensors: the keys of `etprof compare --format json` "tensors" rows.
COMPARE_COLUMNS = ("status", "run", "instruction_id", "occurrence", "list_index", "output",
                   "operator", "dtype", "numel", "mse", "max_abs", "l1", "snr_db", "cosine",
                   "nonfinite")


class Compare:
    """Two runs' logged tensors matched and compared (:func:`etprof.compare`; ``etprof compare
    --format json``): ``tensors`` (one row per tensor, :data:`etprof.COMPARE_COLUMNS`:
    ``status`` matched / shape differs / only in base / only in new, ``run``,
    ``instruction_id``, ``occurrence``, ``list_index``, ``output``, ``operator`` (BASE's, with
    a program), ``dtype``, ``numel``, and for matched rows ``mse``, ``max_abs``, ``l1`` (mean
    abs), ``snr_db`` (inf when identical), ``cosine``, ``nonfinite``; NaN on other rows; a
    DataFrame with pandas), ``matched``, ``unmatched``, ``first_divergence`` (the row index of
    the first matched tensor that differs, in BASE's execution order, or None),
    ``first_below_snr`` (the first below ``fail_below_snr``, or None) and ``fail_below_snr``.
    """

    __slots__ = ("base", "new", "tensors", "matched", "unmatched", "first_divergence",
                 "first_below_snr", "fail_below_snr", "_rows")

    @property
    def diverged(self) -> bool:
        """True when a matched tensor differs."""
        return self.first_divergence is not None

    @property
    def divergence(self) -> Any:
        """The first divergence's row as a dict (None when every matched tensor is equal)."""
        if self.first_divergence is None:
            return None
        return {k: self._rows[k][self.first_divergence] for k in COMPARE_COLUMNS}

    def __repr__(self):
        if self.first_divergence is None:
            what = "every matched tensor identical"
        else:
            d = self.divergence
            what = "first divergence: run %d, instruction %d%s (SNR %.2f dB)" % (
                d["run"], d["instruction_id"], ", " + d["operator"] if d["operator"] else "",
                d["snr_db"])
        return "<etprof.Compare %r vs %r: %d matched, %d unmatched; %s>" % (
            self.base, self.new, self.matched, self.unmatched, what)

    def _repr_html_(self):
        r = self._rows
        rows = [tuple(r[k][i] for k in ("status", "run", "instruction_id", "operator", "dtype",
                                        "numel", "mse", "max_abs", "snr_db", "cosine"))
                for i in range(len(r["status"]))]
        return ("<p>%s</p>" % _html.escape(repr(self)) +
                _html_table(("status", "run", "instr", "operator", "dtype", "numel", "MSE",
                             "max |diff|", "SNR dB", "cosine"), rows))


def compare(base: PathArg | Profile, new: PathArg | Profile, *, debug_buffer: Data | None = None,
            debug_buffer_new: Data | None = None, pte: PathArg | None = None,
            pte_new: PathArg | None = None, method: str | None = None,
            fail_below_snr: float | None = None, as_dict: bool = False) -> Compare:
    """Compares the tensors two runs of the same program logged (``etprof compare BASE NEW
    --debug-buffer A --debug-buffer-new B [--pte P] [--fail-below-snr DB]``), by the library's
    matching (run, instruction, occurrence, TensorList index) and figures (MSE, max and mean
    abs difference, SNR dB, cosine). ``base`` and ``new`` are ETDump paths or bytes, opened with
    ``debug_buffer`` / ``debug_buffer_new``, ``pte`` / ``pte_new`` (default: ``pte``, the
    command's one ``--pte``) and ``method``; or open :class:`Profile` objects that were given
    their debug buffer (then the ``debug_buffer*``/``pte*`` arguments must be None).
    Returns a :class:`Compare`. Raises :class:`UsageError` when a side has no debug buffer."""
    opened = []

    def side(x, buf, p, which):
        if isinstance(x, Profile):
            if buf is not None or p is not None:
                raise UsageError("compare: %s is an open Profile: give its debug buffer and "
                                 "program to etprof.open" % which)
            return x
        q = open(x, p, method=method, debug_buffer=buf)
        opened.append(q)
        return q

    try:
        a = side(base, debug_buffer, pte, "base")
        b = side(new, debug_buffer_new, pte_new if pte_new is not None else
                 (pte if not isinstance(new, Profile) else None), "new")
        d = _etprof.compare(a._p, b._p, fail_below_snr=fail_below_snr)
        c = Compare()
        c.base, c.new = a.etdump, b.etdump
        c.matched, c.unmatched = d["matched"], d["unmatched"]
        c.first_divergence = d["first_divergence"]
        c.first_below_snr = d["first_below_snr"]
        c.fail_below_snr = None if fail_below_snr is None else float(fail_below_snr)
        c._rows = {k: d["tensors"][k] for k in COMPARE_COLUMNS}
        pd = None if as_dict else _need_pandas("compare()")
        c.tensors = c._rows if pd is None else pd.DataFrame(c._rows, columns=list(COMPARE_COLUMNS))
        if pd is not None:
            c.tensors["list_index"] = pd.array(c._rows["list_index"], dtype="Int64")
        return c
    finally:
        for q in opened:
            q.close()


Profile._repr_html_ = _profile_html
Finding._repr_html_ = _finding_html
Diff._repr_html_ = _diff_html
