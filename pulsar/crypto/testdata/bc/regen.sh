#!/bin/sh
# Regenerates the ECIES vectors with BouncyCastle (Debian: apt-get install
# libbcprov-java libbcpkix-java; Java 17): bc-wrapped.txt (BouncyCastle
# wraps, our test opens), go-wrapped.txt (our ECIES wraps) and
# bc-opened-go.txt (BouncyCastle's record of opening those).
set -eu
cd "$(dirname "$0")"
J=${BC_JARS:-/usr/share/java}
CP=$J/bcprov.jar:$J/bcpkix.jar:$J/bcutil.jar
CLASSES=$(mktemp -d)
trap 'rm -rf "$CLASSES"' EXIT
javac -d "$CLASSES" -cp "$CP" EciesVectors.java
java -cp "$CP:$CLASSES" EciesVectors wrap keys bc-wrapped.txt
(cd ../.. && PULSARGO_ECIES_VECTORS="$PWD/testdata/bc/go-wrapped.txt" go test -count=1 -run '^TestWriteECIESVectors$' .)
java -cp "$CP:$CLASSES" EciesVectors unwrap keys go-wrapped.txt bc-opened-go.txt
