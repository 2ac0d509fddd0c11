// Builds the prototype WebAssembly kernels of viz_app/kernels/ (AssemblyScript, pinned in package.json, 128-bit
// SIMD, the stub runtime: no garbage collector, a bump allocator) into viz_app/kernels/dist/NAME.wasm. No network.
//   node scripts/build_kernels.mjs
// `build()` is exported for tests that need the kernel before a build was run.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const KERNELS = ["token2token"];
export const DIST = path.join(ROOT, "viz_app", "kernels", "dist");

export async function build() {
  const asc = (await import("assemblyscript/asc")).default;
  fs.mkdirSync(DIST, { recursive: true });
  // written under a name of this process's own, then renamed: two builds at once (two test processes) never
  // leave a half-written file where the other reads
  const tmp = fs.mkdtempSync(path.join(DIST, ".build-"));
  try {
    for (const name of KERNELS) {
      const out = path.join(tmp, `${name}.wasm`), errors = [];
      const { error } = await asc.main([
        path.join(ROOT, "viz_app", "kernels", `${name}.ts`), "--outFile", out, "--textFile", out.replace(/wasm$/, "wat"),
        "-O3", "--runtime", "stub", "--noAssert", "--enable", "simd",
      ], { stderr: { write: (s) => errors.push(String(s)) }, stdout: { write: () => {} } });
      if (error) throw new Error(`building viz_app/kernels/${name}.ts failed: ${error.message}\n${errors.join("")}`);
      for (const ext of ["wat", "wasm"]) fs.renameSync(out.replace(/wasm$/, ext), path.join(DIST, `${name}.${ext}`));
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return KERNELS.map((name) => path.join(DIST, `${name}.wasm`));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const file of await build()) console.log(`${path.relative(ROOT, file)}: ${fs.statSync(file).size} bytes`);
}
