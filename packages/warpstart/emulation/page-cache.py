"""Drops files from the page cache, so that their next read comes from storage.

Usage: page-cache.py PATH... [--installed PATH...]
(a folder: every file below it; a link to a file: the file it names). Dirty pages cannot be
dropped, so each file is synced first (a task root is a fresh copy); files after --installed
were written long before (an npm install) and are not.
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


sync = True
for root in sys.argv[1:]:
    if root == "--installed":
        sync = False
        continue
    for file in files(root):
        fd = os.open(file, os.O_RDONLY)
        try:
            if sync:
                os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
