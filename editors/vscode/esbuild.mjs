// Bundles the extension into dist/extension.js (`vscode` stays external: VS Code provides it) and the chat
// webview's script into dist/webview.js; copies the codicons (font and CSS) into dist/ for the webviews.
import * as fs from "node:fs";
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const common = { bundle: true, minify: production, sourcemap: !production, sourcesContent: false, logLevel: "warning" };

await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: ["src/extension.ts"],
    format: "cjs",
    platform: "node",
    target: "node20",
    outfile: "dist/extension.js",
    external: ["vscode"],
  }),
  esbuild.build({
    ...common,
    entryPoints: ["webview/chat.ts"],
    format: "iife",
    platform: "browser",
    target: "es2022",
    outfile: "dist/webview.js",
  }),
]);
for (const file of ["codicon.css", "codicon.ttf"]) {
  fs.copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, `dist/${file}`);
}
