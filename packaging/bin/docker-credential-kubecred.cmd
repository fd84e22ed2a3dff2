@echo off
rem The docker credential helper of the packaged app (docker and podman run it by this name).
call "%~dp0kubecred.cmd" registry docker-credential %*
