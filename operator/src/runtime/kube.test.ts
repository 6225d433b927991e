import { describe, expect, it } from "vitest";
import { ApiException } from "@kubernetes/client-node";
import { apiMessage, rejection } from "./kube.ts";

const status = (code: number, message: string) =>
  new ApiException(
    code,
    "Unknown API Status Code!",
    JSON.stringify({ kind: "Status", status: "Failure", message, code }),
    {},
  );

describe("rejection: which apiserver answers no retry can change", () => {
  it.each([
    {
      name: "400 Bad Request",
      err: status(400, "bad request"),
      want: { status: 400, message: "bad request" },
    },
    {
      name: "403 from an admission webhook",
      err: status(403, 'admission webhook "x" denied the request'),
      want: { status: 403, message: 'admission webhook "x" denied the request' },
    },
    {
      name: "422 Invalid",
      err: status(422, 'Job.batch "j" is invalid'),
      want: { status: 422, message: 'Job.batch "j" is invalid' },
    },
    {
      name: "a 403 whose body is already parsed",
      err: Object.assign(new Error("forbidden"), { code: 403, body: { message: "policy says no" } }),
      want: { status: 403, message: "policy says no" },
    },
    {
      name: "a 422 with a plain-text body",
      err: new ApiException(422, "Unknown API Status Code!", "invalid", {}),
      want: { status: 422, message: "invalid" },
    },
    { name: "409 (exists: the gateway's own case)", err: status(409, "exists"), want: null },
    { name: "404", err: status(404, "not found"), want: null },
    { name: "429 Too Many Requests", err: status(429, "slow down"), want: null },
    { name: "500", err: status(500, "etcd timeout"), want: null },
    { name: "503", err: status(503, "unavailable"), want: null },
    {
      name: "a network error",
      err: Object.assign(new Error("ECONNRESET"), { code: "ECONNRESET" }),
      want: null,
    },
    { name: "not an error at all", err: "boom", want: null },
  ])("$name", ({ err, want }) => {
    expect(rejection(err)).toEqual(want);
  });
});

describe("apiMessage", () => {
  it("falls back to the error's own message when the body says nothing", () => {
    expect(apiMessage(Object.assign(new Error("forbidden"), { code: 403 }))).toBe("forbidden");
    expect(apiMessage(new ApiException(400, "x", undefined, {}))).toContain("HTTP-Code: 400");
  });
});
