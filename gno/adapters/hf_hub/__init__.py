"""The Hugging Face hub through ``huggingface_hub``: list a repo's files, download one file.

Imported only when a model is fetched (``huggingface_hub`` pulls in an HTTP stack).
The endpoint comes from ``HF_ENDPOINT`` and a token from ``HF_TOKEN`` or the stored
login, as for any ``huggingface_hub`` user; every hub failure leaves as a
``ModelDownloadError`` naming the repo, the file and what the hub said.
"""
