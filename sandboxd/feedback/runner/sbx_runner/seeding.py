"""Seeding: random before the module and before each test, and numpy's
global generator as soon as numpy.random is imported, by whoever."""

import random
import sys

_random_seed = random.seed          # kept in case the candidate rebinds it


def reseed(seed):
    if seed is None:
        return
    _random_seed(seed)
    npr = sys.modules.get("numpy.random")
    if npr is not None:
        try:
            npr.seed(seed % 2**32)
        except Exception:
            pass


class _SeedingLoader:
    def __init__(self, loader, seed):
        self._loader, self._seed = loader, seed

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = self._loader          # hide the wrapper again
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        module.seed(self._seed % 2**32)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class NumpySeeder:
    """meta_path finder: numpy.random is seeded right after it is imported,
    whoever imports it (the candidate, the tests, pandas, ...)."""

    def __init__(self, seed):
        self.seed = seed

    def find_spec(self, fullname, path, target=None):
        if fullname != "numpy.random":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _SeedingLoader(spec.loader, self.seed)
        return spec
