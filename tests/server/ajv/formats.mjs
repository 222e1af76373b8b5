// Ajv's verdicts, configured exactly as the MCP TypeScript SDK client configures it.
// stdin: [[schema, instance], ...] as JSON; stdout: [true | false, ...].
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const cases = JSON.parse(await new Response(process.stdin).text());
const judge = new AjvJsonSchemaValidator();
const verdicts = cases.map(([schema, instance]) => judge.getValidator(schema)(instance).valid);
process.stdout.write(JSON.stringify(verdicts));
