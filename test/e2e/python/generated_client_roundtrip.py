"""Submits the Kang 2018 split pair through a client generated from /openapi.json by
openapi-python-client, waits for the prediction, reads the derived routes and downloads every
artifact. Prints one JSON line with what it saw; the calling test checks it.

Usage: python generated_client_roundtrip.py BASE_URL API_KEY SPLIT_DIR OUT_DIR
"""

import json
import sys
import time
from pathlib import Path

import httpx
from causeway_client import AuthenticatedClient
from causeway_client.api.derived_results import get_causal_graph, get_causal_paths
from causeway_client.api.predictions import create_prediction, get_prediction
from causeway_client.api.usage import get_quota
from causeway_client.models.create_prediction_body import CreatePredictionBody
from causeway_client.models.prediction_create_form_job_type import PredictionCreateFormJobType
from causeway_client.models.predict_response import PredictResponse
from causeway_client.models.prediction_status_response import PredictionStatusResponse
from causeway_client.types import File


def main() -> None:
    base_url, api_key, split_dir, out_dir = sys.argv[1:5]
    split = Path(split_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    client = AuthenticatedClient(base_url=base_url, token=api_key, prefix="", auth_header_name="X-API-Key")
    with client as c, open(split / "control.h5ad", "rb") as control, open(split / "perturbed.h5ad", "rb") as pert:
        body = CreatePredictionBody(
            dataset_control=File(payload=control, file_name="control.h5ad"),
            dataset_pert=File(payload=pert, file_name="perturbed.h5ad"),
            degs=json.loads((split / "degs.json").read_text()),
            job_type=PredictionCreateFormJobType.TARGET_VALIDATION,
            target="STAT1|PROTEIN",
            label="generated python client",
        )
        created = create_prediction.sync_detailed(client=c, body=body)
        if not isinstance(created.parsed, PredictResponse):
            raise SystemExit(f"create failed: {created.status_code} {created.content!r}")
        prediction_id = created.parsed.prediction_id

        deadline = time.monotonic() + 280
        while True:
            status = get_prediction.sync(prediction_id, client=c)
            if not isinstance(status, PredictionStatusResponse):
                raise SystemExit(f"status failed: {status!r}")
            if status.status.value in ("completed", "failed") or time.monotonic() > deadline:
                break
            time.sleep(2)

        files = []
        for artifact in status.artifacts or []:
            res = httpx.get(artifact.url)
            res.raise_for_status()
            (out / artifact.name).parent.mkdir(parents=True, exist_ok=True)
            (out / artifact.name).write_bytes(res.content)
            files.append({"name": artifact.name, "bytes": len(res.content)})
        paths = get_causal_paths.sync(prediction_id, client=c)
        graph = get_causal_graph.sync_detailed(prediction_id, client=c, top_n_degs=10, dpi=72)
        quota = get_quota.sync(client=c)
        print(
            json.dumps(
                {
                    "prediction_id": str(prediction_id),
                    "status": status.status.value,
                    "target": status.target,
                    "label": status.label,
                    "files": files,
                    "n_paths": len(paths.paths) if paths else None,
                    "first_path": paths.paths[0].path if paths and paths.paths else None,
                    "graph_status": int(graph.status_code),
                    "graph_png": graph.content[:8] == b"\x89PNG\r\n\x1a\n",
                    "quota_consumed": quota.consumed_quota_requests if quota else None,
                }
            )
        )


if __name__ == "__main__":
    main()
