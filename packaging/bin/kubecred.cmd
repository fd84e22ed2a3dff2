@echo off
rem The packaged app's kubecred CLI: the app binary runs the CLI in app.asar as plain Node.
set ELECTRON_RUN_AS_NODE=1
"%~dp0..\..\Kubecred.exe" "%~dp0..\app.asar\bin\kubecred" %*
