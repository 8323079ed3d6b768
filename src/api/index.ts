/** The API client of DESIGN section 6: what the rest of coursesync imports from src/api. */
export {
  ApiClient,
  type ApiClientOptions,
  type ClientStats,
  type Credentials,
  classifyNetworkError,
  type Listing,
  type ListOptions,
  type Method,
  recordFromBody,
} from "./client.js";
export {
  ApiError,
  type ApiErrorInit,
  CREDENTIALS_HINT,
  NetworkError,
  type ServerMessage,
  serverMessage,
  WriteOutcomeUnknownError,
} from "./errors.js";
export { DEFAULT_CONCURRENCY, type GateOptions, RequestGate } from "./gate.js";
export { loginUrlFor, parseBaseUrl, redactUrl, siteKey } from "./login-url.js";
export {
  type Collected,
  type CollectOptions,
  collectPages,
  lastPageFromHeaders,
  type Page,
  parseLinkHeader,
} from "./paging.js";
export {
  type BackoffPolicy,
  backoffCeiling,
  backoffDelay,
  defaultBackoffPolicy,
  parseRetryAfter,
  retryDelay,
} from "./retry.js";
export {
  asWireRecord,
  type ChapterInput,
  type CourseInput,
  type Resource,
  resourceKey,
  type WireChapter,
  type WireCourse,
  type WireRecord,
} from "./wire.js";
