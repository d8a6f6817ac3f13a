// Temporary: replaced by the REST surface (being written).
import type { HttpHandler, LiveContext } from "./server.ts";
export function createRestHandler(_context: LiveContext): HttpHandler {
  return (_request, response) => void response.writeHead(501).end();
}
