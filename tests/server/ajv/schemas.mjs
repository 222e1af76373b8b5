// Does Ajv take each schema? stdin: [schema, ...] as JSON. stdout: [null | "why", ...].
// Two readings, as hosts make them: Ajv 8's defaults (draft-07, the meta-schema checked:
// what VS Code and most hosts do with a tool's schemas) and the MCP TypeScript SDK
// client's own validator (which compiles each listed outputSchema in listTools).
import Ajv from "ajv";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const schemas = JSON.parse(await new Response(process.stdin).text());
const sdk = new AjvJsonSchemaValidator();
const out = [];
for (const schema of schemas) {
  let why = null;
  try {
    new Ajv({ strict: false, logger: false }).compile(schema);
  } catch (error) {
    why = `ajv: ${error.message}`;
  }
  try {
    sdk.getValidator(schema);
  } catch (error) {
    why = `${why ? why + "; " : ""}sdk: ${error.message}`;
  }
  out.push(why);
}
process.stdout.write(JSON.stringify(out));
