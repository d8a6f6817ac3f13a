// Temporary: replaced by the admin surface (being written).
import type { HttpHandler, LiveContext } from "./server.ts";
export function createAdminHandler(_context: LiveContext): HttpHandler {
  return (_request, response) => void response.writeHead(501).end();
}
