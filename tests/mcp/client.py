"""Drives `nu-agent mcp` with the official MCP Python SDK (package `mcp`),
as an agent's MCP client would: one scenario per run, its findings printed
as one JSON document on stdout for the Rust test to judge.

    python client.py SCENARIO [--answer yes|no|always] [--cases FILE] -- SERVER [ARGS...]

The server is started in the current directory with this process's
environment. Scenarios:

  basics      initialize, list tools, run, variables across calls, check,
              help, a parse error, resources
  confirm     run a step that asks (`rm gone.txt`); the client answers the
              elicitation with --answer (yes, no, always), or with
              --answer none declares no elicitation capability
  readonly    run an allowed read (`^git status --short`)
  job         job_run, job_status, job_result
  cancel      start a long run (`^sleep 37.25`), cancel the call, then run
              again in the same session
  concurrent  20 calls at once from one client
  clients     3 clients at once, each with calls of its own
  redteam     every case of --cases ([{id, pipeline, run, fresh}]) through
              check, and those marked `run` through run
  bench       --count runs of --pipeline, each call's wall time
"""

import argparse
import json
import os
import sys
import time

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
import mcp_types as types


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


async def connect(client, body):
    with open(os.devnull, "w") as errlog:
        async with stdio_client(client.params, errlog=sys.stderr if os.environ.get("MCP_TEST_SERVER_LOG") else errlog) as (read, write):
            async with client.session(read, write) as session:
                init = await session.initialize()
                return await body(session, init)


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
        return {
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
                if sleepers():
                    seen.extend(sleepers())
                    return
                await anyio.sleep(0.02)

        started = time.monotonic()
        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            with anyio.move_on_after(2.0):
                await session.call_tool("run", {"pipeline": "^sleep 37.25"})
        cancelled_after = time.monotonic() - started
        gone_after = None
        for i in range(250):
            if not sleepers():
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


SCENARIOS = {
    "basics": basics,
    "confirm": confirm,
    "readonly": readonly,
    "job": job,
    "cancel": cancel,
    "concurrent": concurrent,
    "clients": clients,
    "redteam": redteam,
    "bench": bench,
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
    args = parser.parse_args(argv[:split])
    args.server = argv[split + 1 :]
    found = anyio.run(SCENARIOS[args.scenario], args)
    json.dump(found, sys.stdout)


if __name__ == "__main__":
    main()
