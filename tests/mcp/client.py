"""Drives `nu-agent mcp` with the official MCP Python SDK (package `mcp`),
as an agent's MCP client would: one scenario per run, its findings printed
as one JSON document on stdout for the Rust test to judge.

    python client.py SCENARIO [--http] [--answer yes|no|always] [--cases FILE] -- SERVER [ARGS...]

The server is started in the current directory with this process's
environment: on stdio, one server per connection; with --http, one server
for the whole scenario (`SERVER ARGS... --http 127.0.0.1:0`), whose
address and bearer token are read from its stderr, and every connection
is an MCP session of its own over streamable HTTP. Scenarios:

  basics      initialize, list tools, run, variables across calls, check,
              help, a parse error, resources
  confirm     run a step that asks (`rm gone.txt`); the client answers the
              elicitation with --answer (yes, no, always), or with
              --answer none declares no elicitation capability
  readonly    run an allowed read (`^git status --short`)
  job         job_run, job_status, job_result
  cancel      start a long run (`^sleep 37.25`, or --marker), cancel the
              call, then run again in the same session
  concurrent  20 calls at once from one client
  clients     3 clients at once, each with calls of its own
  redteam     every case of --cases ([{id, pipeline, run, fresh}]) through
              check, and those marked `run` through run
  bench       --count runs of --pipeline, each call's wall time
  isolation   two sessions open at once, each with variables of its own
  modern      (--http) connect as the SDK's default client does (probe
              server/discover first), then state across two calls
  auth        (--http) requests without the token, with a wrong one, on
              another path, from a browser page (Origin); then one with it
"""

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
import mcp_types as types

# With --http: the server's {"url", "token"}, once it listens.
HTTP = None


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def summary(result):
    return {
        "is_error": bool(result.is_error),
        "text": text_of(result),
        "structured": result.structured_content,
    }


class Client:
    """One connection to a server of its own."""

    def __init__(self, server, answer=None, name="nu-agent-tests"):
        self.params = StdioServerParameters(
            command=server[0], args=server[1:], env=dict(os.environ), cwd=os.getcwd()
        )
        self.answer = answer
        self.asked = []
        self.name = name

    async def elicit(self, context, params):
        self.asked.append({"message": params.message, "schema": params.requested_schema})
        if self.answer == "decline":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"answer": self.answer})

    def session(self, read, write):
        callback = self.elicit if self.answer not in (None, "none") else None
        return ClientSession(
            read,
            write,
            elicitation_callback=callback,
            client_info=types.Implementation(name=self.name, version="1.0"),
        )


@contextlib.asynccontextmanager
async def streams(client):
    """The client's connection: a server of its own on stdio, or a new
    MCP session with the --http server."""
    if HTTP is not None:
        headers = {"Authorization": f"Bearer {HTTP['token']}"}
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(HTTP["url"], http_client=http) as (read, write):
                yield read, write
        return
    with open(os.devnull, "w") as errlog:
        log = sys.stderr if os.environ.get("MCP_TEST_SERVER_LOG") else errlog
        async with stdio_client(client.params, errlog=log) as (read, write):
            yield read, write


@contextlib.asynccontextmanager
async def opened(client):
    """An initialized session of `client`: (session, initialize result)."""
    async with streams(client) as (read, write):
        async with client.session(read, write) as session:
            init = await session.initialize()
            yield session, init


async def connect(client, body):
    async with opened(client) as (session, init):
        return await body(session, init)


class HttpServer:
    """`SERVER ARGS... --http 127.0.0.1:0`, for the whole scenario: its
    address and token come from its stderr (which is then drained)."""

    def __init__(self, server):
        self.process = subprocess.Popen(
            server + ["--http", "127.0.0.1:0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.log = []
        url = token = None
        deadline = time.monotonic() + 60
        while (url is None or token is None) and time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                break
            self.log.append(line)
            found = re.search(r"on (http://\S+)", line)
            if found:
                url = found.group(1)
            found = re.search(r"bearer token: ([0-9a-f]{64})", line)
            if found:
                token = found.group(1)
        if url is None or token is None:
            self.stop()
            raise SystemExit("the HTTP server printed no address and token:\n" + "".join(self.log))
        self.url, self.token = url, token
        threading.Thread(target=self.drain, daemon=True).start()

    def drain(self):
        for line in self.process.stderr:
            self.log.append(line)
            if os.environ.get("MCP_TEST_SERVER_LOG"):
                sys.stderr.write(line)

    def stop(self):
        """SIGTERM, as a user's Ctrl+C or service manager would; its exit code."""
        self.process.terminate()
        try:
            return self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


async def run(session, pipeline, **extra):
    return summary(await session.call_tool("run", {"pipeline": pipeline, **extra}))


async def basics(args):
    async def body(session, init):
        found = {
            "server": init.server_info.name,
            "instructions": init.instructions or "",
            "client_elicitation": None,
        }
        tools = await session.list_tools()
        found["tools"] = sorted(t.name for t in tools.tools)
        found["count"] = await run(session, "ls | length")
        found["let"] = await run(session, "let x = 5")
        found["use"] = await run(session, "$x + 1")
        found["def"] = await run(session, "def twice [n: int] { $n * 2 }")
        found["call_def"] = await run(session, "twice 21")
        found["cd"] = await run(session, "cd sub; $env.PWD")
        found["after_cd"] = await run(session, "ls | get name")
        found["out"] = await run(session, "$out.0 + 100")
        found["check"] = summary(await session.call_tool("check", {"pipeline": "rm -rf ~"}))
        found["blocked_run"] = await run(session, "rm -rf ~")
        found["parse_error"] = await run(session, "ls | where (")
        found["help"] = summary(await session.call_tool("help", {"command": "sort-by"}))
        found["bad_args"] = summary(await session.call_tool("run", {"pipeline": 3}))
        resource = await session.read_resource("nu-agent://out/0")
        found["resource"] = json.loads(resource.contents[0].text)
        listed = await session.list_resources()
        found["resources"] = [str(r.uri) for r in listed.resources]
        return found

    return await connect(Client(args.server), body)


async def confirm(args):
    client = Client(args.server, answer=args.answer)

    async def body(session, init):
        first = await run(session, "rm gone.txt")
        exists_after_first = os.path.exists("gone.txt")
        second = None
        if args.answer == "always":
            open("again.txt", "w").close()
            second = await run(session, "rm again.txt")
        return {
            "run": first,
            "exists": exists_after_first,
            "second": second,
            "asked": client.asked,
        }

    return await connect(client, body)


async def one_run(args):
    """`--pipeline`, run once; any question answered with `--answer`."""
    client = Client(args.server, answer=args.answer)

    async def body(session, init):
        return {"run": await run(session, args.pipeline), "asked": client.asked}

    return await connect(client, body)


async def readonly(args):
    async def body(session, init):
        check = summary(await session.call_tool("check", {"pipeline": "^git status --short"}))
        ran = await run(session, "^git status --short")
        return {"check": check, "run": ran}

    return await connect(Client(args.server), body)


async def job(args):
    async def body(session, init):
        started = summary(await session.call_tool("job_run", {"pipeline": "sleep 300ms; {answer: 42}"}))
        job_id = started["structured"]["id"]
        status = summary(await session.call_tool("job_status", {"id": job_id}))
        result = summary(await session.call_tool("job_result", {"id": job_id, "wait": 60}))
        resource = await session.read_resource(f"nu-agent://job/{job_id}/result")
        missing = summary(await session.call_tool("job_status", {"id": 999999}))
        long = summary(await session.call_tool("job_run", {"pipeline": "sleep 30sec; 1"}))
        long_id = long["structured"]["id"]
        await session.call_tool("job_cancel", {"id": long_id})
        cancelled = summary(await session.call_tool("job_result", {"id": long_id, "wait": 60}))
        return {
            "cancelled": cancelled,
            "id": job_id,
            "started": started,
            "status": status,
            "result": result,
            "resource": json.loads(resource.contents[0].text),
            "missing": missing,
        }

    return await connect(Client(args.server), body)


def sleepers(marker="37.25"):
    """Live processes running `sleep <marker>` (a killed one that is not
    reaped yet has no command line)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if len(argv) >= 2 and argv[0].endswith(b"sleep") and argv[1] == marker.encode():
            found.append(int(pid))
    return found


async def cancel(args):
    async def body(session, init):
        await run(session, "let keep = 7")
        seen = []

        async def watch():
            for _ in range(200):
                if sleepers(args.marker):
                    seen.extend(sleepers(args.marker))
                    return
                await anyio.sleep(0.02)

        started = time.monotonic()
        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            with anyio.move_on_after(2.0):
                await session.call_tool("run", {"pipeline": f"^sleep {args.marker}"})
        cancelled_after = time.monotonic() - started
        gone_after = None
        for i in range(250):
            if not sleepers(args.marker):
                gone_after = i * 0.02
                break
            await anyio.sleep(0.02)
        # The session answers again, with what it held.
        after = await run(session, "$keep + 1")
        return {
            "seen": seen,
            "cancelled_after": cancelled_after,
            "gone_after": gone_after,
            "after": after,
        }

    return await connect(Client(args.server), body)


async def concurrent(args):
    async def body(session, init):
        results = [None] * 20

        async def one(i):
            results[i] = await run(session, f"{i} * 3")

        async with anyio.create_task_group() as group:
            for i in range(20):
                group.start_soon(one, i)
        return {"results": results}

    return await connect(Client(args.server), body)


async def clients(args):
    found = {}

    async def one(n):
        async def body(session, init):
            mine = []
            await run(session, f"let who = {n}")
            for i in range(5):
                mine.append(await run(session, f"$who * 100 + {i}"))
            return mine

        found[str(n)] = await connect(Client(args.server, name=f"client-{n}"), body)

    async with anyio.create_task_group() as group:
        for n in range(3):
            group.start_soon(one, n)
    return found


async def redteam(args):
    """Every case through `check`, in one session (nothing runs); cases
    marked `run` through `run` too: those that must not run in that same
    session, the others (`fresh`) each in a session of its own."""
    with open(args.cases) as f:
        cases = json.load(f)
    found = {case["id"]: {"id": case["id"]} for case in cases}

    async def shared(session, init):
        for case in cases:
            found[case["id"]]["check"] = summary(
                await session.call_tool("check", {"pipeline": case["pipeline"]})
            )
        for case in cases:
            if case.get("run") and not case.get("fresh"):
                found[case["id"]]["run"] = await run(session, case["pipeline"], timeout="20s")

    await connect(Client(args.server), shared)
    for case in cases:
        if case.get("run") and case.get("fresh"):

            async def alone(session, init, case=case):
                found[case["id"]]["run"] = await run(session, case["pipeline"], timeout="20s")

            await connect(Client(args.server), alone)
    return list(found.values())


async def bench(args):
    async def body(session, init):
        times = []
        await run(session, args.pipeline)
        for _ in range(args.count):
            started = time.perf_counter()
            result = await session.call_tool("run", {"pipeline": args.pipeline})
            times.append(time.perf_counter() - started)
            if result.is_error:
                raise SystemExit(text_of(result))
        return {"seconds": times}

    return await connect(Client(args.server), body)


async def isolation(args):
    """Two sessions open at once: each keeps its own variables."""
    found = {}
    async with opened(Client(args.server, name="client-a")) as (a, _):
        async with opened(Client(args.server, name="client-b")) as (b, _):
            found["a_let"] = await run(a, "let x = 'a'; let only_a = 1")
            found["b_let"] = await run(b, "let x = 'b'")
            found["a_x"] = await run(a, "$x")
            found["b_x"] = await run(b, "$x")
            found["b_only_a"] = await run(b, "$only_a")
            found["a_only_a"] = await run(a, "$only_a + 1")
    return found


async def modern(args):
    """A client that first probes `server/discover` at the sessionless
    protocol (2026-07-28), as the SDK's default `Client` does: over HTTP
    the server offers only the versions with sessions, so the client falls
    back to `initialize`, and the session keeps its state."""
    from mcp.client._probe import negotiate_auto

    client = Client(args.server)
    async with streams(client) as (read, write):
        async with client.session(read, write) as session:
            await negotiate_auto(session)
            init = session.initialize_result
            return {
                "handshake": init.protocol_version if init is not None else None,
                "let": await run(session, "let x = 5"),
                "use": await run(session, "$x + 1"),
            }


async def auth(args):
    """Raw requests that must be refused, then a real session."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    bearer = {"Authorization": f"Bearer {HTTP['token']}"}
    base = HTTP["url"].rsplit("/", 1)[0]
    found = {}
    async with httpx2.AsyncClient() as http:
        for name, url, headers in [
            ("no_token", HTTP["url"], {}),
            ("wrong_token", HTTP["url"], {"Authorization": "Bearer " + "0" * 64}),
            ("basic", HTTP["url"], {"Authorization": "Basic " + HTTP["token"]}),
            ("other_path", base + "/other", bearer),
            ("browser", HTTP["url"], {**bearer, "Origin": "http://evil.example"}),
            ("other_host", HTTP["url"], {**bearer, "Host": "evil.example"}),
        ]:
            response = await http.post(url, json=initialize, headers={**accept, **headers})
            found[name] = {"status": response.status_code, "body": response.text[:300]}

    async def body(session, init):
        return await run(session, "1 + 2")

    found["with_token"] = await connect(Client(args.server), body)
    return found


SCENARIOS = {
    "basics": basics,
    "confirm": confirm,
    "one_run": one_run,
    "readonly": readonly,
    "job": job,
    "cancel": cancel,
    "concurrent": concurrent,
    "clients": clients,
    "redteam": redteam,
    "bench": bench,
    "isolation": isolation,
    "modern": modern,
    "auth": auth,
}


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        raise SystemExit(__doc__)
    split = argv.index("--")
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--answer", default="none")
    parser.add_argument("--cases")
    parser.add_argument("--pipeline", default="1 + 1")
    parser.add_argument("--count", type=int, default=41)
    parser.add_argument("--http", action="store_true")
    # `cancel`'s step, `sleep <marker>`: distinct per test, since tests run at once.
    parser.add_argument("--marker", default="37.25")
    args = parser.parse_args(argv[:split])
    args.server = argv[split + 1 :]
    if not args.http:
        found = anyio.run(SCENARIOS[args.scenario], args)
        json.dump(found, sys.stdout)
        return
    global HTTP
    server = HttpServer(args.server)
    HTTP = {"url": server.url, "token": server.token}
    try:
        found = anyio.run(SCENARIOS[args.scenario], args)
    finally:
        code = server.stop()
    found = {"found": found, "url": server.url, "exit_code": code, "server_log": "".join(server.log)}
    json.dump(found, sys.stdout)


if __name__ == "__main__":
    main()
