"""Drops files from the page cache, so that their next read comes from storage.

Usage: page-cache.py PATH...  (a folder: every file below it; a link to a file: the file it names).
Dirty pages cannot be dropped, so each file is synced first (a task root is a fresh copy).
"""

import os
import sys


def files(path):
    if os.path.isdir(path) and not os.path.islink(path):
        for folder, _, names in os.walk(path):
            for name in names:
                yield from files(os.path.join(folder, name))
    elif os.path.isfile(path):  # a link to a file counts as the file
        yield os.path.realpath(path)


for root in sys.argv[1:]:
    for file in files(root):
        fd = os.open(file, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
