"""Where a job's chunks are computed: in this process (the default), or as tasks on a Ray
cluster (docs/cluster.md).

Every long job (games, matches, rollouts, decision rollouts, files of positions,
tournaments) is a sequence of chunks, each a pure function of its indices: the dice of
game ``g`` are a function of ``(seed, g, ply, stream)``, so a chunk gives the same bits
wherever it is computed. A backend maps the job's chunk function over the chunk specs and
hands the results back **in spec order**; the job merges them, writes its journal, shows
progress and applies its stopping rule exactly as it does locally, so the two backends
share one code path for merging, journaling and resume:

* :data:`LOCAL` computes each chunk when the job asks for the next one;
* :class:`RayCluster` ships the chunk function and its settings once per job
  (``ray.put``: a gnubg bot's weights travel once, not with every task) and keeps two
  tasks per task slot of the cluster in flight. In a task numba runs on the task's CPUs
  (:func:`fastbg.parallel.task_threads`), whatever thread count the job asked for.

Failures. A worker that dies (killed, its node lost) has its task retried by Ray
(``max_retries``; chunks are pure, so a retry gives the same bits). A chunk that fails
through its own fault (a bot's NaN score: :class:`fastbg.BotError` naming the game) is
raised in spec order, as its own exception: the chunks before it are merged (and
journaled) first, the tasks after it are dropped. Ctrl-C (KeyboardInterrupt) in the
driver stops the job; the job keeps the chunks merged so far, as locally. Tasks in flight
are left to finish and their results dropped, not cancelled (see :meth:`RayCluster.map`).
A chunk finished out of order behind an unfinished one is not merged: resuming computes
it again.
"""
import collections
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor

from fastbg.constants import VERSION
from fastbg.parallel import task_threads
from fastbg.extras import MissingPackage
from fastbg.validation import check_int

#: The driver's work per chunk: submitting a task and taking its result. Measured on 2
#: shared cores (AMD EPYC, bench/ray_backend.py): 418 trivial tasks/s with 64 in flight,
#: 2.4 ms a task; a journal line adds 0.3 ms (a rollout chunk) to 5.3 ms (32,768 games).
DRIVER_SECONDS = 0.0024
#: Adaptively sized chunks last long enough that the driver is busy at most this share.
DRIVER_SHARE = 0.25
INSTALL_HINT = "pip install 'fastbg[ray]'"

#: How long the driver waits for the oldest task before it checks that the cluster's head
#: still answers, and how long the head may stay silent before the job stops with
#: :class:`ClusterLost` (Ray itself waits 60 s for its GCS and then aborts the process
#: natively, with no word on what was saved).
HEALTH_CHECK_SECONDS = 1.0
CLUSTER_LOST_SECONDS = 10.0


class ClusterLost(RuntimeError):
    """The Ray cluster's head stopped answering in the middle of a job. Every chunk merged
    before is in the job's results file (``out=``): resume it there, on the cluster once
    it is back or on one machine."""


#: One task of a Ray job, as :attr:`RayCluster.last` lists them: its chunk ``spec``, the
#: chunk's compute ``seconds`` in the task, the worker's ``pid`` and ``host`` name, and the
#: Ray ``node`` id (several nodes can share a host).
TaskRecord = collections.namedtuple("TaskRecord", "spec seconds pid host node")


def _ray():
    """The ray module, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise MissingPackage(f"running on a Ray cluster needs Ray: {INSTALL_HINT}", "ray") from exc
    return ray


class Local:
    """Compute each chunk in this process, when the job asks for the next one."""

    def chunk_target(self, seconds):
        """The wall time an adaptively sized chunk should take: ``seconds`` (Ctrl-C is
        seen between chunks)."""
        return seconds

    def map(self, compute, specs, label="fastbg"):
        """Yield ``(spec, compute(*spec), seconds)`` for each spec, in order."""
        for spec in specs:
            t0 = time.perf_counter()
            result = compute(*spec)
            yield spec, result, time.perf_counter() - t0

    def __repr__(self):
        return "Local()"


LOCAL = Local()


class LocalThreads(Local):
    """Compute ``threads`` chunks at once in this process, on Python threads, and hand
    them back in spec order: for jobs of many small independent units (files of positions
    with few trials each), whose units are each too small to keep every thread busy. The
    chunk function must run its kernels on one thread (they release the GIL).

    At most two chunks a thread are computed ahead of the oldest unfinished one. When the
    job stops taking results (Ctrl-C, an error), the chunks not started are dropped and
    the ones under way are waited for (a unit each): results past the job's last are
    never merged, as on a cluster.
    """

    def __init__(self, threads):
        self.threads = check_int("threads", threads, 1)

    def map(self, compute, specs, label="fastbg"):
        def timed(spec):
            t0 = time.perf_counter()
            return compute(*spec), time.perf_counter() - t0

        pending = collections.deque()
        specs = iter(specs)
        with ThreadPoolExecutor(self.threads, thread_name_prefix="fastbg-units") as pool:
            try:
                for spec in specs:
                    pending.append((spec, pool.submit(timed, spec)))
                    if len(pending) >= 2 * self.threads:
                        break
                while pending:
                    spec, future = pending.popleft()
                    result, seconds = future.result()
                    for nxt in specs:
                        pending.append((nxt, pool.submit(timed, nxt)))
                        break
                    yield spec, result, seconds
            finally:
                for _, future in pending:
                    future.cancel()

    def __repr__(self):
        return f"LocalThreads({self.threads})"


class RayCluster:
    """Run a job's chunks as tasks on a Ray cluster: pass it as ``backend=`` to a job.

    address       : where to connect when this process has not called ``ray.init`` yet:
                    None (Ray's default: ``RAY_ADDRESS``, else a cluster started on this
                    machine with ``ray start``, else a new local instance on this
                    machine's cores), ``"auto"`` (a running cluster, or an error), or
                    ``"host:6379"`` / ``"ray://host:10001"``.
    cpus_per_task : CPUs each task reserves; numba runs on that many threads in it.
    in_flight     : tasks submitted ahead of the oldest unfinished one (default: two per
                    task slot of the cluster).
    max_retries   : Ray's retries of a task whose worker died.
    init          : further keyword arguments of ``ray.init`` (when it is called here).

    ``last`` describes the last job's tasks: a list of :data:`TaskRecord` ``(spec, seconds,
    pid, host, node)`` in spec order (seconds: the chunk's compute time in its task; node:
    the Ray node id).
    """

    def __init__(self, address=None, *, cpus_per_task=1, in_flight=None, max_retries=3,
                 init=None):
        _ray()                              # without Ray, say so before anything starts
        self.address = address
        self.cpus_per_task = check_int("cpus_per_task", cpus_per_task, 1)
        self.in_flight = check_int("in_flight", in_flight, 1, none=True)
        self.max_retries = check_int("max_retries", max_retries, 0)
        self.init = dict(init or {})
        self.last = []

    def __repr__(self):
        return f"RayCluster({self.address!r}, cpus_per_task={self.cpus_per_task})"

    def connect(self):
        """The ray module, connected (``ray.init`` unless this process already is)."""
        ray = _ray()
        if not ray.is_initialized():
            try:
                ray.init(address=self.address, **self.init)
            except ConnectionError as exc:
                raise ConnectionError(f"cannot reach the Ray cluster at {self.address!r}: "
                                      f"{exc}") from None
        return ray

    def slots(self):
        """Tasks the cluster runs at once (its CPUs over ``cpus_per_task``)."""
        cpus = self.connect().cluster_resources().get("CPU", 0)
        return max(1, int(cpus // self.cpus_per_task))

    def chunk_target(self, seconds):
        """The compute time an adaptively sized chunk should take: ``seconds``, or longer
        on a large cluster, so that the driver, which handles every chunk, keeps up."""
        return max(seconds, self.slots() * DRIVER_SECONDS / DRIVER_SHARE)

    def map(self, compute, specs, label="fastbg"):
        """Yield ``(spec, compute(*spec), seconds)`` for each spec, in spec order, each
        computed in a Ray task. Use it inside ``contextlib.closing``: closing it early
        drops the tasks still in flight (they finish; their results are not read)."""
        ray = self.connect()
        task = _remote_task(ray)
        # SPREAD: the job's tasks go to every node with a free slot, not packed onto a few
        options = {"num_cpus": self.cpus_per_task, "max_retries": self.max_retries,
                   "scheduling_strategy": "SPREAD"}
        try:
            # Pickled here, unpickled in the worker: arrays that come straight out of Ray's
            # object store are read-only, and numba compiles every kernel again for
            # read-only arrays (the gnubg networks' tens of seconds, in each worker).
            context = [ray.put(ray.cloudpickle.dumps(compute))]   # a task fetches it once
        except ray.exceptions.RayError:
            raise                             # the object store's, not the job's
        except Exception as exc:              # cloudpickle raises many kinds
            raise TypeError(f"this job cannot be sent to Ray workers: its bots, evaluators or "
                            f"settings do not pickle ({exc})") from exc
        window = self.in_flight or 2 * self.slots()
        versions = _versions()
        self.last = log = []
        pending = collections.deque()
        specs = iter(specs)
        more = True
        try:
            while True:
                while more and len(pending) < window:
                    spec = next(specs, None)
                    if spec is None:
                        more = False
                        break
                    ref = task.options(name=f"{label} {_spec_text(spec)}", **options).remote(
                        context, tuple(spec), versions)
                    pending.append((spec, ref))
                if not pending:
                    return
                spec, ref = pending[0]
                self._wait(ray, ref)
                try:
                    result, seconds, pid, host, node = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, Exception):
                        raise cause from None     # the chunk's own error (BotError, ...)
                    raise
                pending.popleft()
                log.append(TaskRecord(spec, seconds, pid, host, node))
                yield spec, result, seconds
        finally:
            # The tasks still in flight are left to finish, not cancelled: Ray's cancel
            # races with the reply of a task finishing at that moment and can abort the
            # driver ("Tried to complete task that was not pending", ray-project/ray
            # #54846; in 3 of 11 runs of the Ctrl-C scenario of tests/test_ray.py here,
            # Ray 2.60). They are a window of chunks of a few seconds each, their results
            # dropped with the references; a driver that exits ends its job, and Ray
            # stops its workers then.
            pending.clear()

    def _wait(self, ray, ref):
        """Wait for task ``ref``; raise :class:`ClusterLost` once the cluster's head (its
        GCS) has refused connections for :data:`CLUSTER_LOST_SECONDS`."""
        silent_since = None
        while not ray.wait([ref], timeout=HEALTH_CHECK_SECONDS)[0]:
            gcs = ray.get_runtime_context().gcs_address
            if _answers(gcs):
                silent_since = None
            elif silent_since is None:
                silent_since = time.monotonic()
            elif time.monotonic() - silent_since >= CLUSTER_LOST_SECONDS:
                raise ClusterLost(f"the Ray cluster at {gcs} is gone: its head has not "
                                  f"answered for {CLUSTER_LOST_SECONDS:.0f} s")


def _answers(address):
    """Whether ``host:port`` takes a TCP connection (the head's GCS is up)."""
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
        return True
    except (OSError, ValueError):
        return False


def resolve_backend(backend):
    """The backend of a job's ``backend=`` argument: ``"local"`` (this process, the
    default), ``"ray"`` (a Ray cluster at Ray's default address: the one this process
    joined with ``ray.init``, ``RAY_ADDRESS``, a cluster started here, else a new local
    instance), or a :class:`RayCluster` (another address, task CPUs, retries)."""
    if isinstance(backend, (RayCluster, Local)):
        return backend
    if isinstance(backend, str):
        key = backend.strip().lower()
        if key == "local":
            return LOCAL
        if key == "ray":
            return RayCluster()
    raise ValueError(f'backend is "local", "ray" or a fastbg.RayCluster; got {backend!r}')


def _spec_text(spec):
    if len(spec) == 2:
        return f"{spec[0]}..{spec[1]}"
    return "/".join(map(str, spec))


def _versions():
    import numba
    return VERSION, numba.__version__


_REMOTE = []
_CONTEXTS = collections.OrderedDict()   # in a worker: the chunk functions of recent jobs
_KEEP = 2


def _remote_task(ray):
    if not _REMOTE:
        _REMOTE.append(ray.remote(_run_task))
    return _REMOTE[0]


def _run_task(context, spec, versions):
    """A Ray task: chunk ``spec`` of the job whose chunk function is ``context[0]`` (an
    ObjectRef, fetched once per worker and job), on the task's CPUs.
    Returns (result, compute seconds, pid, host, Ray node id)."""
    import ray
    if _versions() != versions:
        raise RuntimeError(f"the worker on {socket.gethostname()} runs fastbg {VERSION} with "
                           f"numba {_versions()[1]}; the driver fastbg {versions[0]} with numba "
                           f"{versions[1]}: install the same versions on every node")
    key = context[0].binary()
    compute = _CONTEXTS.get(key)
    if compute is None:
        compute = _CONTEXTS[key] = ray.cloudpickle.loads(ray.get(context[0]))
        while len(_CONTEXTS) > _KEEP:
            _CONTEXTS.popitem(last=False)
    cpus = ray.get_runtime_context().get_assigned_resources().get("CPU", 1)
    with task_threads(max(1, round(cpus))):
        t0 = time.perf_counter()
        result = compute(*spec)
        seconds = time.perf_counter() - t0
    return (result, seconds, os.getpid(), socket.gethostname(),
            ray.get_runtime_context().get_node_id())
