// Child process of bench-api: streams a generated multipart G-code upload of argv[3] MB to argv[2] with the key in
// PRINTFARM_BENCH_KEY, so the client's buffers are not counted in the server's memory. Prints the answer as JSON.
import { closing, fieldPart, filePartHead, generatedGcode, postMultipart } from '../../test/files/multipart-helpers.js';

const [url, mbText] = process.argv.slice(2);
const gen = generatedGcode(Number(mbText) * 1024 * 1024);
const res = await postMultipart(url!, process.env.PRINTFARM_BENCH_KEY ?? '', [
  fieldPart('name', 'big'),
  fieldPart('group', 'nowhere'),
  filePartHead('file', 'big.gcode'),
  gen.stream,
  '\r\n',
  closing,
]);
console.log(JSON.stringify({ status: res.status, sha256_ok: (res.body as { data?: { file_id?: string } }).data?.file_id !== undefined }));
