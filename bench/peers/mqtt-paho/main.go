// The baseline of bench/mqtt.mjs: what Benthos' mqtt input and output do with their client library,
// eclipse/paho.mqtt.golang, without the rest of Benthos: subscribe to a topic at a QoS in a
// persistent session (paho acknowledges each message as its handler returns, as Benthos' client
// does), and publish each message to another topic at a QoS, waiting for the broker's
// acknowledgement, with up to max-in-flight publishes at once (Benthos' max_in_flight, 64).
// Runs until SIGINT or SIGTERM.
package main

import (
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

func main() {
	url := flag.String("url", "tcp://127.0.0.1:11883", "broker URL")
	clientID := flag.String("client-id", "", "client id (a persistent session)")
	from := flag.String("from", "", "topic to subscribe to")
	to := flag.String("to", "", "topic to publish to")
	qos := flag.Int("qos", 1, "QoS of the subscription and of each publish")
	maxInFlight := flag.Int("max-in-flight", 64, "publishes awaiting their acknowledgement at once")
	flag.Parse()

	slots := make(chan struct{}, *maxInFlight)
	in := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(*url).SetClientID(*clientID).SetCleanSession(false).SetAutoReconnect(false))
	out := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(*url).SetClientID(*clientID + "-out").SetAutoReconnect(false))
	if t := out.Connect(); t.Wait() && t.Error() != nil {
		log.Fatal(t.Error())
	}
	if t := in.Connect(); t.Wait() && t.Error() != nil {
		log.Fatal(t.Error())
	}
	handler := func(_ mqtt.Client, m mqtt.Message) {
		slots <- struct{}{}
		t := out.Publish(*to, byte(*qos), false, m.Payload())
		go func() {
			t.Wait()
			if t.Error() != nil {
				log.Fatal(t.Error())
			}
			<-slots
		}()
	}
	if t := in.Subscribe(*from, byte(*qos), handler); t.Wait() && t.Error() != nil {
		log.Fatal(t.Error())
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	in.Disconnect(100)
	out.Disconnect(100)
}
