@echo off
rem The packaged app's kubecred CLI: the app binary runs the CLI in app.asar as plain Node.
rem setlocal: ELECTRON_RUN_AS_NODE stays in this script, not in the console that ran it (an
rem Electron app started from that console later would run as bare Node).
setlocal
set ELECTRON_RUN_AS_NODE=1
"%~dp0..\..\Kubecred.exe" "%~dp0..\app.asar\bin\kubecred" %*
exit /b %ERRORLEVEL%
