"""Run: .venv/bin/python docs/examples/compaction_demo.py — the example in docs/compaction.md."""
import asyncio, json, sys
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings, MemorySettings
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.summarize.offline import OfflineSummarizer
import os, pathlib, tempfile
ws = tempfile.mkdtemp()
os.makedirs(ws + "/src"); os.makedirs(ws + "/.compact/memory")
pathlib.Path(ws, "src/login.ts").write_text("export function login(user: string, password: string): boolean {\n  if (!user || !password) return false;\n  return check(user, password);\n}\n")
pathlib.Path(ws, ".compact/memory/MEMORY.md").write_text("- [Lint rules](lint.md): always run eslint before committing\n")
s = ContextSession("ses_demo", settings=EngineSettings(memory=MemorySettings(project_root=ws+"/.compact/memory", user_root="/nonexistent")), counter=TiktokenCounter(), workspace_root=ws, system="You are a coding agent.")
big = "x\n" * 3000
s.append([
 {"role":"user","content":"The login form accepts empty passwords. Fix it and add a test."},
 {"role":"assistant","content":[{"type":"text","text":"Let me read the login code."},{"type":"tool_use","id":"toolu_01","name":"read_file","input":{"file_path":ws+"/src/login.ts"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":open(ws+"/src/login.ts").read()}]},
 {"role":"assistant","content":[{"type":"tool_use","id":"toolu_02","name":"TodoWrite","input":{"todos":[{"content":"Reject empty passwords in login()","status":"completed"},{"content":"Add a unit test for empty passwords","status":"in_progress"}]}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_02","content":"Todos updated"}]},
 {"role":"assistant","content":[{"type":"tool_use","id":"toolu_03","name":"run_shell_command","input":{"command":"npm test"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_03","content":"FAIL src/login.test.ts\n"+big,"is_error":True}]},
 {"role":"assistant","content":[{"type":"text","text":"The test runner fails before reaching login; next I will add src/login.test.ts."}]},
])
out = asyncio.run(s.compact(OfflineSummarizer()))
print(json.dumps(out.to_wire(), indent=2))
print("-----")
for m in s.view():
    for b in m["content"]:
        print(f"[{m['role']} {b['type']}]"); print(b.get("text", b))
