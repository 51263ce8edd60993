// Compile a .ksy (given as JSON on stdin, converted from YAML by compile.sh) to Python
// with the JavaScript build of the Kaitai Struct compiler (npm: kaitai-struct-compiler).
const compiler = require("kaitai-struct-compiler");
let text = "";
process.stdin.on("data", (d) => { text += d; });
process.stdin.on("end", async () => {
  const files = await compiler.compile("python", JSON.parse(text), null, false);
  for (const [name, code] of Object.entries(files)) {
    require("fs").writeFileSync(process.argv[2] + "/" + name, code);
    console.log("wrote " + name);
  }
});
