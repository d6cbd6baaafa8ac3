// Generates src/protocol.generated.ts from the protocol's one definition, docs/protocol.schema.json.
//   node scripts/protocol.mjs          write the file (npm run protocol:generate)
//   node scripts/protocol.mjs --check  fail when the checked-in file differs from a fresh generation (CI)
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const here = dirname(fileURLToPath(import.meta.url));
const schemaPath = join(here, "..", "..", "..", "docs", "protocol.schema.json");
const outPath = join(here, "..", "src", "protocol.generated.ts");
const banner =
  "// Generated from docs/protocol.schema.json by `npm run protocol:generate` (json-schema-to-typescript).\n" +
  "// Do not edit: change the schema (and docs/protocol.md), then regenerate. CI fails when this file is stale.";

const schema = JSON.parse(await readFile(schemaPath, "utf8"));
const generated = await compile(schema, "CompactLspProtocol", {
  bannerComment: banner,
  unknownAny: true,
  unreachableDefinitions: true,
  additionalProperties: false,
  style: { printWidth: 120 },
});

if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = await readFile(outPath, "utf8");
  } catch {
    // a missing file is stale too
  }
  if (current !== generated) {
    console.error(
      "src/protocol.generated.ts is stale: docs/protocol.schema.json changed. Run `npm run protocol:generate` " +
        "in editors/vscode and commit the result.",
    );
    process.exit(1);
  }
  console.log("protocol.generated.ts matches docs/protocol.schema.json");
} else {
  await writeFile(outPath, generated);
  console.log(`wrote ${outPath}`);
}
