#!/bin/sh
# Makes the EC test keys of keys/ with openssl, the way Pulsar's docs do
# ("openssl ecparam -name secp521r1 -genkey -param_enc explicit", then
# "openssl ec -pubout"), for each curve with named and explicit parameters,
# plus a PKCS#8 form of every private key and one key whose explicit
# parameters and public point are compressed. New keys invalidate the
# committed vectors: run ./regen.sh after this.
set -eu
cd "$(dirname "$0")/keys"
for curve in p256:prime256v1 p384:secp384r1 p521:secp521r1 secp256k1:secp256k1; do
	short=${curve%%:*}
	name=${curve#*:}
	for enc in named_curve explicit; do
		stem=$short-${enc%_curve}
		openssl ecparam -name "$name" -genkey -param_enc "$enc" -out "$stem.priv.pem"
		openssl ec -in "$stem.priv.pem" -pubout -out "$stem.pub.pem" 2>/dev/null
		openssl pkcs8 -topk8 -nocrypt -in "$stem.priv.pem" -out "$stem.pkcs8.pem"
	done
done
openssl ecparam -name prime256v1 -genkey -param_enc explicit -conv_form compressed -out p256-compressed.priv.pem
openssl ec -in p256-compressed.priv.pem -pubout -conv_form compressed -out p256-compressed.pub.pem 2>/dev/null
openssl pkcs8 -topk8 -nocrypt -in p256-compressed.priv.pem -out p256-compressed.pkcs8.pem
# A self-signed certificate of an explicit-parameters key (the Java client
# takes a certificate's key as a public key).
openssl req -x509 -key p521-explicit.priv.pem -subj /CN=pulsargo-ecies -days 36500 -out p521-explicit.cert.pem
