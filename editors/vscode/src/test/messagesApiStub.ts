// A loopback stub of the Anthropic Messages API: POST /v1/messages answers, in order, the scripted turns, as
// server-sent events exactly as the API streams them (or as one JSON message when the request does not stream).
// A turn can also be an API error (repeated for the SDK's retries) or a slow answer (to cancel it). With a second
// script, requests without tools (the summariser's) take their turns from it, so background summaries never eat
// the agent's turns. Used by the chat check and by e2e/run.mjs.
import * as http from "node:http";
import type { AddressInfo } from "node:net";

export type StubBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** A scripted turn: content blocks, or an error or a delay. */
export type StubTurn =
  | StubBlock[]
  | {
      blocks?: StubBlock[];
      /** Answer only after this long (a client that gives up meanwhile closes the connection). */
      delayMs?: number;
      /** Answer with this API error instead, `repeat` times in a row (the SDK retries 429/5xx). */
      error?: { status: number; type: string; message: string };
      repeat?: number;
    };

export interface StubServer {
  baseUrl: string;
  /** Every request body received, in order. */
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startMessagesApiStub(turns: StubTurn[], summaries?: StubTurn[]): Promise<StubServer> {
  const requests: Record<string, unknown>[] = [];
  const queue = turns.slice();
  const summaryQueue = summaries?.slice();
  const next = (q: StubTurn[]): StubTurn | undefined => {
    const turn = q[0];
    if (turn !== undefined && !Array.isArray(turn) && turn.error !== undefined && (turn.repeat ?? 1) > 1) {
      q[0] = { ...turn, repeat: (turn.repeat ?? 1) - 1 };
      return turn;
    }
    return q.shift();
  };
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
      const turn = summaryQueue !== undefined && request.tools === undefined ? next(summaryQueue) : next(queue);
      const spec = Array.isArray(turn) ? { blocks: turn } : turn;
      if (spec?.error !== undefined) {
        res.writeHead(spec.error.status, { "content-type": "application/json", "retry-after-ms": "10" });
        res.end(JSON.stringify({ type: "error", error: { type: spec.error.type, message: spec.error.message } }));
        return;
      }
      const blocks = spec?.blocks;
      if (blocks === undefined) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "stub: no turn scripted" } }));
        return;
      }
      const n = requests.length;
      const answer = (): void => {
        if (res.destroyed) {
          return;
        }
        if (request.stream === true) {
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
          res.end(events(blocks, n));
        } else {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify(message(blocks, n)));
        }
      };
      if (spec?.delayMs !== undefined) {
        const timer = setTimeout(answer, spec.delayMs);
        res.on("close", () => clearTimeout(timer));
      } else {
        answer();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
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
