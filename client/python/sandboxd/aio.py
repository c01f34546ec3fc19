"""asyncio variants: AsyncClient has Client's constructor and awaitable
run / execute / ping, and `run_many` as an async generator.

It is built on Client: the waiting happens in threads (one per request in
flight, as in Client.run_many), never on the event loop, so a trainer's loop
stays responsive while jobs run; the delivery and retry rules are Client's.
"""
import asyncio
import concurrent.futures
import threading
from typing import Any, AsyncIterator, Dict, Iterable, List, Optional

from .client import Client, SandboxdError, build_request
from .results import Ping, Result


class AsyncClient:
    def __init__(self, *args: Any, max_threads: int = 256, **kwargs: Any):
        self.client = Client(*args, **kwargs)
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=max_threads,
                                                           thread_name_prefix="sandboxd-aio")

    async def _in_thread(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def execute(self, request: Dict[str, Any]) -> Result:
        return await self._in_thread(self.client.execute, request)

    async def run(self, code: str, tests=None, format: Optional[str] = None, limits=None,
                  files=None, stdin=None, seed=None, id: Optional[str] = None,
                  **fields: Any) -> Result:
        """As Client.run: raises SandboxdError for a refused request."""
        r = await self.execute(dict(build_request(code, tests, format, limits, files, stdin,
                                                  seed, **fields), **({"id": id} if id else {})))
        if r.error is not None:
            raise SandboxdError(r.error.code, r.error.message, r)
        return r

    async def ping(self) -> List[Ping]:
        return await self._in_thread(self.client.ping)

    async def run_many(self, requests: Iterable[Dict[str, Any]],
                       concurrency: Optional[int] = None) -> AsyncIterator[Result]:
        """As Client.run_many, as an async generator: results as they finish."""
        loop = asyncio.get_running_loop()
        q: "asyncio.Queue" = asyncio.Queue()
        stop = threading.Event()

        def put(item):
            try:
                loop.call_soon_threadsafe(q.put_nowait, item)
            except RuntimeError:  # the loop is gone: nobody is listening
                stop.set()

        def pump():
            gen = self.client.run_many(requests, concurrency)
            try:
                for r in gen:
                    put(r)
                    if stop.is_set():
                        break
            except Exception as e:  # handed to the consumer
                put(e)
            finally:
                gen.close()
                put(None)

        t = threading.Thread(target=pump, daemon=True, name="sandboxd-aio-many")
        t.start()
        try:
            while True:
                r = await q.get()
                if r is None:
                    return
                if isinstance(r, BaseException):
                    raise r
                yield r
        finally:
            stop.set()

    async def close(self) -> None:
        self.client.close()
        self._pool.shutdown(wait=False)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()


async def arun(code: str, client: Optional[AsyncClient] = None, **kwargs: Any) -> Result:
    """One job on the default socket (or `client`)."""
    if client is not None:
        return await client.run(code, **kwargs)
    async with AsyncClient() as c:
        return await c.run(code, **kwargs)


async def arun_many(requests: Iterable[Dict[str, Any]], client: Optional[AsyncClient] = None,
                    concurrency: Optional[int] = None) -> AsyncIterator[Result]:
    """Results as they finish, on the default socket (or `client`)."""
    own = client is None
    c = AsyncClient() if own else client
    try:
        async for r in c.run_many(requests, concurrency):
            yield r
    finally:
        if own:
            await c.close()
