"""How a child process the tests start reads its own peak resident memory: code to put in it.

Why not `resource.getrusage(RUSAGE_SELF).ru_maxrss`: Linux keeps ru_maxrss across fork and exec,
so a child of a large test process (an xdist worker that ran a 30 MB results file an hour ago)
reports the worker's size, not its own. `VmHWM` in /proc/self/status is the high-water mark of
the child's own address space, new at exec; ru_maxrss is the fallback off Linux.
"""

PEAK_KB = '''
def _peak_kb():
    try:
        return int(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM:")))
    except (OSError, StopIteration):
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
'''
