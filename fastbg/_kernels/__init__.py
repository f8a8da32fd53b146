"""numba kernels. Nothing here validates user input: call them through the public wrappers."""
