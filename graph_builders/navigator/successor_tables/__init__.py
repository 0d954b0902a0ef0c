"""Successor tables per jurisdiction (`<jurisdiction>.csv`: old,new,note), read by `successors`."""
