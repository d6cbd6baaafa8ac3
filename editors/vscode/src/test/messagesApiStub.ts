// A loopback stub of the Anthropic Messages API: POST /v1/messages answers, in order, the scripted turns, as
// server-sent events exactly as the API streams them (or as one JSON message when the request does not stream).
// Used by the chat check and by e2e/run.mjs.
import * as http from "node:http";
import type { AddressInfo } from "node:net";

export type StubBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export interface StubServer {
  baseUrl: string;
  /** Every request body received, in order. */
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startMessagesApiStub(turns: StubBlock[][]): Promise<StubServer> {
  const requests: Record<string, unknown>[] = [];
  const queue = turns.slice();
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.method !== "POST" || !(req.url ?? "").startsWith("/v1/messages")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: req.url } }));
        return;
      }
      const request = JSON.parse(body) as Record<string, unknown>;
      requests.push(request);
      const blocks = queue.shift();
      if (blocks === undefined) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "stub: no turn scripted" } }));
        return;
      }
      if (request.stream === true) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.end(events(blocks, requests.length));
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(message(blocks, requests.length)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function message(blocks: StubBlock[], n: number): Record<string, unknown> {
  return {
    id: `msg_stub_${n}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: blocks,
    stop_reason: blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn", stop_sequence: null,
    usage: { input_tokens: 100 * n, output_tokens: 20 },
  };
}

function events(blocks: StubBlock[], n: number): string {
  const out: string[] = [];
  const send = (type: string, data: Record<string, unknown>): void => {
    out.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  send("message_start", {
    message: {
      id: `msg_stub_${n}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [],
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 100 * n, output_tokens: 1 },
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      // Two deltas, so the client has to join streamed pieces.
      const half = Math.ceil(block.text.length / 2);
      for (const piece of [block.text.slice(0, half), block.text.slice(half)]) {
        send("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
      }
    } else {
      send("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    }
    send("content_block_stop", { index });
  });
  const stop = blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
  send("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } });
  send("message_stop", {});
  return out.join("");
}
