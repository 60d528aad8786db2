/**
 * The benchmark's baseline: the least an express server does for the same requests — parse the same JSON bodies and
 * answer with the same small JSON — so Strata's figures can be read as a ratio to it, measured in the same run.
 */
import express from 'express';

const app = express();
app.use(express.json({ limit: '64mb', type: () => true }));
app.post('/aspects', (request, response) => {
  const body = request.body as { proposal?: { aspect?: { value?: string } } };
  JSON.parse(body.proposal?.aspect?.value ?? '{}');
  response.json({ value: 'success' });
});
app.post('/entities', (request, response) => {
  const body = request.body as { entity?: string };
  response.json({ value: { numEntities: 0, pageSize: 10, from: 0, entities: [], entity: body.entity ?? null } });
});
app.get('/entitiesV2/*urn', (request, response) => {
  response.json({ urn: request.path.slice('/entitiesV2/'.length), entityName: 'dataset', aspects: {} });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
});
